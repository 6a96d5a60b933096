"""The smallest Yjs edit that turns one text into another.

A change that reaches a room from outside (a file edited on disk, an agent's
answer computed with the core) is applied as the edit between the room's text
and the wanted text: the changed lines, trimmed to the changed characters, in
one transaction. The room is never rebuilt from text: peers that hold its
history would get a second copy (the jupyter-collaboration bug).

A person's change made on a text the room has moved on from is replayed on
the room's text the same way, character by character (:func:`rebase`).

pycrdt ``Text`` offsets are UTF-8 bytes; the diff runs on ``str`` and the
offsets are converted last.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from agent_doc.document._linediff import diff_lines
from agent_doc.document._linediff import split_lines
from agent_doc.document._yrs import TEXT_KEY

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import pycrdt

Op = tuple[int, int, str]
"""``(start, end, text)``: replace ``old[start:end]`` with ``text``."""


CHAR_DIFF_LIMIT = 4096
"""Regions up to this many characters (both sides) are diffed character by
character; larger ones are trimmed to their differing middle."""
MIN_KEPT = 3
"""Shorter runs a region's two sides share are not kept (they are chance)."""


def edit_ops(old: str, new: str) -> list[Op]:
    """The edits (``str`` offsets on ``old``, ascending) that turn ``old`` into ``new``.

    Lines that changed one for one are edited from their first to their last
    differing character. A region where lines were added or removed is diffed
    by character, so text both sides hold — a line someone is typing in, next
    to lines an answer adds — is never deleted and inserted again (for a CRDT
    that is new text: a concurrent insert into it would land elsewhere; for
    an editor it is an edit over the cursor). Pure insertions go to a line
    start where the text allows it.
    """
    if old == new:
        return []
    a, b = split_lines(old), split_lines(new)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    ops: list[Op] = []
    for a1, a2, b1, b2 in diff_lines(a, b):
        if a2 - a1 == b2 - b1:
            pairs = zip(range(a1, a2), b[b1:b2], strict=True)
            ops.extend(_trimmed(starts[i], a[i], line) for i, line in pairs)
        else:
            ops.extend(_region_ops(starts[a1], "".join(a[a1:a2]), "".join(b[b1:b2])))
    return [op for op in ops if op[0] != op[1] or op[2]]


def _region_ops(at: int, old: str, new: str) -> list[Op]:
    """Edits turning the region ``old`` (at offset ``at``, whole lines) into ``new``."""
    if len(old) + len(new) > CHAR_DIFF_LIMIT:
        return [_trimmed(at, old, new)]
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    ops: list[Op] = []
    i = j = 0
    for i2, j2, size in matcher.get_matching_blocks():
        if size < MIN_KEPT and i2 + size < len(old):  # the last block is (len, len, 0)
            continue
        if i < i2 or j < j2:
            ops.append((i, i2, new[j:j2]))
        i, j = i2 + size, j2 + size
    limits = [op[0] for op in ops[1:]] + [len(old)]
    slid = [
        _at_line_start(old, op, limit) for op, limit in zip(ops, limits, strict=True)
    ]
    return [(at + start, at + end, text) for start, end, text in slid]


def _at_line_start(old: str, op: Op, limit: int) -> Op:
    """An insertion slid (not past ``limit``) to the next line start when it
    is the same edit there (``"x\\n"`` inserted after ``x`` is ``"\\nx"``
    inserted before it): an editor's cursor at the end of that line stays."""
    start, end, text = op
    if start != end or not text or start == 0 or old[start - 1] == "\n":
        return op
    at, moved = start, text
    while at < limit and old[at - 1] != "\n" and moved[0] == old[at]:
        moved = moved[1:] + moved[0]
        at += 1
    return (at, at, moved) if old[at - 1] == "\n" else op


def _trimmed(at: int, old: str, new: str) -> Op:
    """Replace ``old`` (at offset ``at``) by ``new``, minus their common ends."""
    limit = min(len(old), len(new))
    pre = 0
    while pre < limit and old[pre] == new[pre]:
        pre += 1
    suf = 0
    while suf < limit - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    return (at + pre, at + len(old) - suf, new[pre : len(new) - suf])


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
