"""The smallest Yjs edit that turns one text into another.

A change that reaches a room from outside (a file edited on disk, an agent's
answer computed with the core) is applied as the edit between the room's text
and the wanted text: the changed lines, trimmed to the changed characters, in
one transaction. The room is never rebuilt from text: peers that hold its
history would get a second copy (the jupyter-collaboration bug).

pycrdt ``Text`` offsets are UTF-8 bytes; the diff runs on ``str`` and the
offsets are converted last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from agent_doc.document._linediff import diff_lines
from agent_doc.document._linediff import split_lines

if TYPE_CHECKING:
    import pycrdt

Op = tuple[int, int, str]
"""``(start, end, text)``: replace ``old[start:end]`` with ``text``."""


def edit_ops(old: str, new: str) -> list[Op]:
    """The edits (``str`` offsets on ``old``, ascending) that turn ``old`` into ``new``.

    Lines that changed one for one are edited from their first to their last
    differing character; other changed regions are trimmed the same way.
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
            ops.append(_trimmed(starts[a1], "".join(a[a1:a2]), "".join(b[b1:b2])))
    return [op for op in ops if op[0] != op[1] or op[2]]


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


def apply_text_change(doc: pycrdt.Doc[Any], text: pycrdt.Text, new: str) -> int:
    """Turn ``text`` into ``new`` with the smallest edit, in one transaction.

    Returns the number of edits made (0 when the text already is ``new``).
    A replacement inserts before it deletes, as the merge does: the inserted
    text then ties with a concurrent insert at the same spot, and the lower
    client id (an agent) goes first.
    """
    old = str(text)
    ops = utf8_ops(old, edit_ops(old, new))
    if not ops:
        return 0
    with doc.transaction():
        for start, end, insert in reversed(ops):  # later edits first: no shifting
            size = len(insert.encode("utf-8"))
            if insert:
                text.insert(start, insert)
            if end > start:
                del text[start + size : end + size]
    return len(ops)
