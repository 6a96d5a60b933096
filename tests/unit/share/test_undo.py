"""The person's own undo in a shared document (``agent_doc.share.undo``):
two real pycrdt documents that sync, as two peers of one room."""

from __future__ import annotations

from typing import Any

from pycrdt import Doc
from pycrdt import Text

from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.share.mirror import BufferMirror
from agent_doc.share.peer import RoomPeer
from agent_doc.share.textedit import apply_text_change
from agent_doc.share.undo import OwnUndo

BASE = "# Notes\n\nfirst line\nsecond line\n"


class Clock:
    """Milliseconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def _peer() -> RoomPeer:
    peer = RoomPeer("ws://127.0.0.1:9/room", lambda: None, on_remote=lambda _t: None)
    peer.synced.set()
    return peer


def _remote_from(peer: RoomPeer) -> tuple[Doc[Any], Text]:
    """A second peer of the room holding what ``peer`` holds."""
    doc: Doc[Any] = Doc()
    doc.apply_update(peer.doc.get_update())
    return doc, doc.get(TEXT_KEY, type=Text)


def _sync(a: Doc[Any], b: Doc[Any]) -> None:
    b.apply_update(a.get_update(b.get_state()))
    a.apply_update(b.get_update(a.get_state()))


def _type(peer: RoomPeer, old: str, at: int, chars: str) -> str:
    new = old[:at] + chars + old[at:]
    peer.apply_local(old, new)
    return new


def test_undo_removes_only_the_persons_text_and_redo_brings_it_back() -> None:
    """The person types; a remote peer and the agent insert around it; undo
    takes back the person's text alone, and redo restores it. The undo and
    the redo reach the other peer like any edit."""
    peer = _peer()
    peer.apply_local("", BASE, undoable=False)  # the seed is nobody's step
    remote, remote_text = _remote_from(peer)
    _type(peer, BASE, BASE.index("first") + 5, " typed")
    _sync(peer.doc, remote)
    remote_text.insert(str(remote_text).index("second"), "REMOTE ")
    _sync(peer.doc, remote)
    answer = peer.current() + "### Re: notes\n\nThe answer.\n"
    apply_text_change(peer.doc, peer.text, answer)  # the agent (no origin)
    assert " typed" in peer.current()
    assert "REMOTE" in peer.current()

    assert peer.undo()
    undone = peer.current()
    assert undone == BASE.replace("second", "REMOTE second") + (
        "### Re: notes\n\nThe answer.\n"
    )
    _sync(peer.doc, remote)
    assert str(remote_text) == undone
    assert not peer.undo()  # the remote text, the answer and the seed stay

    assert peer.redo()
    assert peer.current() == answer
    _sync(peer.doc, remote)
    assert str(remote_text) == answer
    assert answer.count(" typed") == 1


def test_a_remote_edit_inside_the_persons_insert_survives_its_undo() -> None:
    """Someone types into the middle of what the person inserted: undoing the
    person's insert leaves that someone's characters where they were."""
    peer = _peer()
    peer.apply_local("", BASE, undoable=False)
    remote, remote_text = _remote_from(peer)
    at = BASE.index("second")
    _type(peer, BASE, at, "HELLO WORLD ")
    _sync(peer.doc, remote)
    remote_text.insert(at + len("HELLO"), ", DEAR")
    _sync(peer.doc, remote)
    assert peer.current() == BASE[:at] + "HELLO, DEAR WORLD " + BASE[at:]
    assert peer.undo()
    assert peer.current() == BASE[:at] + ", DEAR" + BASE[at:]
    _sync(peer.doc, remote)
    assert str(remote_text) == peer.current()


def test_undo_of_a_deletion_restores_the_persons_deleted_text() -> None:
    peer = _peer()
    peer.apply_local("", BASE, undoable=False)
    peer.apply_local(BASE, BASE.replace("first line\n", ""))
    assert peer.undo()
    assert peer.current() == BASE


def test_a_burst_of_typing_is_one_step_and_a_pause_starts_another() -> None:
    """Changes closer than the capture time are one step; a longer pause
    (or a remote edit meanwhile, which does not break the burst) does not
    merge them with the next ones."""
    clock = Clock()
    doc: Doc[Any] = Doc()
    text = doc.get(TEXT_KEY, type=Text)
    text.insert(0, BASE)
    history = OwnUndo(doc, text, capture_ms=500, clock=clock)
    current = BASE
    for word in ("one ", "two "):
        clock.now += 100
        new = word + current
        apply_text_change(doc, text, new, "agent-doc:person")
        current = new
    text.insert(len(str(text)), "remote\n")  # no origin: not the person's
    clock.now += 2_000  # a pause
    apply_text_change(doc, text, "three " + str(text), "agent-doc:person")
    assert history.undo()
    assert str(text) == "two one " + BASE + "remote\n"
    assert history.undo()
    assert str(text) == BASE + "remote\n"
    assert not history.undo()
    assert history.can_redo()


def test_the_mirror_sends_pending_typing_before_undoing_it() -> None:
    """Typing the server has recorded but not sent yet is the step undone."""
    peer = _peer()
    peer.apply_local("", BASE, undoable=False)
    mirror = BufferMirror(peer, BASE)
    typed = BASE.replace("first", "my first")
    mirror.changed(typed)  # reported, not flushed yet
    assert mirror.undo(typed) == BASE.index("first")
    assert peer.current() == BASE
    assert mirror.behind(typed)
    assert mirror.undo(BASE, redo=True) == BASE.index("first")
    assert peer.current() == typed
    assert mirror.undo(typed, redo=True) is None
