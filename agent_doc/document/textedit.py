"""The smallest edits that turn one text into another.

One algorithm for every place that edits a text someone else holds: an open
editor buffer (:mod:`agent_doc.write.live`), a shared room's Yjs text
(:mod:`agent_doc.share.textedit`) and the lines the CRDT merge replays
(:mod:`agent_doc.document.merge`). The lines are diffed into hunks
(:func:`agent_doc.document.linediff.diff_lines`); lines that changed one for
one are trimmed to their differing characters, and a region where lines were
added or removed is diffed by character, so text both sides hold is never
deleted and inserted again. Every trim is :func:`common_ends` (the line diff's
``common_prefix``/``common_suffix``).

Offsets are ``str`` offsets on the old text; an edit never starts or ends
inside a ``\\r\\n`` pair (an LSP position cannot point there).
"""

from __future__ import annotations

from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix
from agent_doc.document.linediff import diff_lines
from agent_doc.document.linediff import split_lines

Op = tuple[int, int, str]
"""``(start, end, text)``: replace ``old[start:end]`` with ``text``."""

CHAR_DIFF_LIMIT = 4096
"""Regions up to this many characters (both sides) are diffed character by
character; larger ones are trimmed to their differing middle."""
MIN_KEPT = 3
"""Shorter runs a region's two sides share are not kept (they are chance)."""


def common_ends(old: str, new: str) -> tuple[int, int]:
    """``(prefix, suffix)``: how many leading and trailing characters ``old``
    and ``new`` share, the two never overlapping."""
    pre = common_prefix(old, new)
    return pre, common_suffix(old, new, min(len(old), len(new)) - pre)


def trimmed_op(at: int, old: str, new: str) -> Op:
    """Replace ``old`` (at offset ``at``) by ``new``, minus their common ends."""
    pre, suf = common_ends(old, new)
    return (at + pre, at + len(old) - suf, new[pre : len(new) - suf])


def single_op(old: str, new: str) -> Op | None:
    """The one smallest edit turning ``old`` into ``new`` (``None``: equal)."""
    if old == new:
        return None
    return _whole_crlf(old, trimmed_op(0, old, new))


def edit_ops(old: str, new: str) -> list[Op]:
    """The edits (``str`` offsets on ``old``, disjoint, ascending) that turn
    ``old`` into ``new``.

    Lines that changed one for one are edited from their first to their last
    differing character. A region where lines were added or removed is diffed
    by character, so text both sides hold — a line someone is typing in, next
    to lines an answer adds — is never deleted and inserted again (for a CRDT
    that is new text: a concurrent insert into it would land elsewhere; for
    an editor it is an edit over the cursor). Pure insertions go to a line
    start where the text allows it. No edit changes nothing.
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
            ops.extend(trimmed_op(starts[i], a[i], line) for i, line in pairs)
        else:
            ops.extend(_region_ops(starts[a1], "".join(a[a1:a2]), "".join(b[b1:b2])))
    return [_whole_crlf(old, op) for op in ops if op[0] != op[1] or op[2]]


def _region_ops(at: int, old: str, new: str) -> list[Op]:
    """Edits turning the region ``old`` (at offset ``at``, whole lines) into ``new``."""
    if len(old) + len(new) > CHAR_DIFF_LIMIT:
        return [trimmed_op(at, old, new)]
    from difflib import SequenceMatcher  # 2 ms; only a region of added lines

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


def _whole_crlf(old: str, op: Op) -> Op:
    """``op`` widened by a character where it would split a ``\\r\\n`` of ``old``.

    Edits of one text stay disjoint: two edits are at least :data:`MIN_KEPT`
    characters apart, or on different lines (a line ends after its ``\\n``).
    """
    start, end, text = op
    if 0 < start < len(old) and old[start - 1] == "\r" and old[start] == "\n":
        start, text = start - 1, "\r" + text
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        end, text = end + 1, text + "\n"
    return (start, end, text)
