"""A buffer mirrored into its room (``agent_doc.share.mirror.BufferMirror``),
with a real (not connected) room peer."""

from __future__ import annotations

from agent_doc.share.mirror import BufferMirror
from agent_doc.share.peer import RoomPeer
from agent_doc.share.textedit import apply_text_change
from agent_doc.write.live import apply_changes
from tests.share.rooms import DOC


async def test_an_edit_reported_in_pieces_is_not_sent_back_as_typing() -> None:
    """Found by tests/editors/test_shared_editors.py: Neovim applies a
    two-region edit last region first, and reports that region at once when
    it was quiet (the rest after its debounce). The half-applied text is the
    server's own edit, not the person's: sent back, it duplicated the answer."""
    peer = RoomPeer("ws://127.0.0.1:9/room", lambda: None, on_remote=lambda _t: None)
    peer.synced.set()
    peer.apply_local("", DOC)
    mirror = BufferMirror(peer, DOC)
    room = DOC.replace("# Pairing", "# Pairing with Bob").replace(
        "7?\n", "7?\n\nIt is 42.\n"
    )
    apply_text_change(peer.doc, peer.text, room)  # two regions from the room
    mirror.in_flight = True  # as while the language server brings the buffer
    plan = mirror.plan(DOC)
    assert len(plan.changes) == 2
    for text in (apply_changes(DOC, plan.changes[1:]), plan.merged):
        mirror.changed(text)
        mirror.flush(text)
        assert peer.current() == room
    mirror.in_flight = False
    typed = plan.merged.replace("What is", "So, what is")
    mirror.changed(typed)
    mirror.flush(typed)
    assert peer.current() == typed
