"""The smallest Yjs edit that turns one text into another.

A change that reaches a room from outside (a file edited on disk, an agent's
answer computed with the core) is applied as the edit between the room's text
and the wanted text (:func:`agent_doc.document.textedit.edit_ops`, the edits
buffer writes and the merge use too), in one transaction. The room is never
rebuilt from text: peers that hold its history would get a second copy (the
jupyter-collaboration bug).

A person's change made on a text the room has moved on from is replayed on
the room's text the same way, character by character (:func:`rebase`).

pycrdt ``Text`` offsets are UTF-8 bytes; the diff runs on ``str`` and the
offsets are converted last.
"""

from __future__ import annotations

from typing import Any

from agent_doc.document.textedit import Op
from agent_doc.document.textedit import edit_ops
from agent_doc.document.yrs_codec import TEXT_KEY

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import pycrdt


def utf8_ops(text: str, ops: list[Op]) -> list[Op]:
    """``ops`` on ``text`` with UTF-8 byte offsets (what pycrdt ``Text`` indexes)."""
    if text.isascii():
        return ops
    out: list[Op] = []
    prev = pos = 0
    for start, end, insert in ops:
        pos += len(text[prev:start].encode("utf-8"))
        byte_start = pos
        pos += len(text[start:end].encode("utf-8"))
        out.append((byte_start, pos, insert))
        prev = end
    return out


def apply_text_change(
    doc: pycrdt.Doc[Any], text: pycrdt.Text, new: str, origin: str | None = None
) -> int:
    """Turn ``text`` into ``new`` with the smallest edit, in one transaction.

    ``origin`` is the transaction's origin (the person's changes carry one, so
    that their undo finds them: :mod:`agent_doc.share.undo`).
    Returns the number of edits made (0 when the text already is ``new``).
    A replacement inserts before it deletes, as the merge does: the inserted
    text then ties with a concurrent insert at the same spot, and the lower
    client id (an agent) goes first.
    """
    old = str(text)
    ops = utf8_ops(old, edit_ops(old, new))
    if not ops:
        return 0
    with doc.transaction(origin=origin):
        for start, end, insert in reversed(ops):  # later edits first: no shifting
            size = len(insert.encode("utf-8"))
            if insert:
                text.insert(start, insert)
            if end > start:
                del text[start + size : end + size]
    return len(ops)


ROOM_SIDE_ID = 1
"""Client id of the room's side in :func:`rebase` (lower: first on a tie)."""
LOCAL_SIDE_ID = 2
"""Client id of the local side in :func:`rebase`."""


def rebase(old: str, new: str, current: str) -> str:
    """The local change ``old`` → ``new`` made on ``current`` instead.

    ``current`` is ``old`` plus changes that came from the room meanwhile.
    Both changes are replayed, as the smallest edits, on two CRDT copies of
    ``old`` and merged: every character the person typed lands where they
    typed it, relative to its neighbours — also on a line the room changed
    too (a line-based merge would replace such a line whole, and text typed
    into it concurrently would end up after its newline). Where both inserted
    at one spot, the room's text comes first: the person's cursor stays
    after their own text.
    """
    from pycrdt import Doc
    from pycrdt import Text

    if current == old:
        return new
    if new == old:
        return current
    seed: Doc[Any] = Doc(client_id=3)
    seed.get(TEXT_KEY, type=Text).insert(0, old)
    state = seed.get_update()
    sides = []
    for client, wanted in ((ROOM_SIDE_ID, current), (LOCAL_SIDE_ID, new)):
        doc: Doc[Any] = Doc(client_id=client)
        doc.apply_update(state)
        apply_text_change(doc, doc.get(TEXT_KEY, type=Text), wanted)
        sides.append(doc)
    room, local = sides
    room.apply_update(local.get_update(room.get_state()))
    return str(room.get(TEXT_KEY, type=Text))
