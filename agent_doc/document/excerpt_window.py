"""The resumed prompt's excerpts of a large document, on its UTF-8.

:func:`resumed_context_utf8` answers what
:func:`~agent_doc.document.excerpt.resumed_context` answers for the decoded
texts, decoding only the text around the markers, the components it sends and
the exchange's tail (a long conversation costs a few byte scans, not its
decoded text and its component scan).

The components are scanned on a small text per side, made as
:mod:`~agent_doc.document.apply_window` makes content_ours's: every stretch
between two marker-like ``<!-- agent:`` (:func:`~agent_doc.document.
apply_window.stretches`: cut at neutral points, holding no marker) becomes a
placeholder paragraph, so the scan finds the same markers in the same order;
their offsets are taken back to the bytes. The document's stretches before
the first byte where it differs from the snapshot are the snapshot's (the
same bytes, neutral on both sides), so only the rest of the document is
scanned. ``apply_window.stretches`` finds them (the write's rule and sizes)
with the snapshot's index from the command's
:class:`~agent_doc.document.snapshot_scan.SnapshotScan` when it has one (the
blocks are then scanned from the checkpoints around each stretch's ends only;
a checkpoint that is not after a blank line of the snapshot is not its
index: the whole scan), else with the snapshot's block scan made once for
the command. Contents are compared as bytes, and
the exchange's first change is the bytes' common prefix backed up to a
character's start. Character counts (:data:`~agent_doc.document.excerpt.
BEFORE_CHANGE`, :data:`~agent_doc.document.excerpt.TAIL_LIMIT`) are counted
on text decoded from a line start at least four bytes a character before.
A small text, a CR, a BOM, a NUL, no stretch, or a document whose exchange is
missing and whose frontmatter does not close takes the plain path.
``tests/unit/document/test_excerpt_window.py`` drives both with the same
random documents and edits.
"""

from __future__ import annotations

from bisect import bisect_right

from agent_doc.document import excerpt
from agent_doc.document.apply_window import WINDOW_FROM
from agent_doc.document.apply_window import stretches
from agent_doc.document.components import scan_components
from agent_doc.document.excerpt import ANSWER_HEADS
from agent_doc.document.excerpt import render_excerpt
from agent_doc.document.excerpt import resumed_context
from agent_doc.document.frontmatter_text import frontmatter_end_utf8
from agent_doc.document.frontmatter_text import split_frontmatter
from agent_doc.document.linediff import common_prefix
from agent_doc.document.snapshot_scan import SnapshotScan

__all__ = ["resumed_context_utf8"]

_WIDE = 4
"""Bytes a character takes at most in UTF-8."""
_CHUNK = 1 << 16

_Span = tuple[str, str | None, int, int, int, int]
"""A component on the bytes: name, parent, open_start, open_end, close_start,
close_end."""


def resumed_context_utf8(
    snapshot: bytes, data: bytes, scan: SnapshotScan | None = None
) -> str:
    """``resumed_context(snapshot.decode(), data.decode())`` (both valid UTF-8),
    decoding only what the excerpts hold (see the module docstring).
    ``scan``: the snapshot's block scan when the command made it already."""
    if scan is None or scan.data is not snapshot:
        scan = SnapshotScan(snapshot)
    theirs = _stretches(snapshot, scan=scan)
    before = now = None
    if theirs is not None:
        before = _components_utf8(snapshot, theirs)
        spans = _stretches(data, snapshot, theirs)
        now = None if spans is None else _components_utf8(data, spans)
    if now is None or before is None:
        return resumed_context(snapshot.decode("utf-8"), data.decode("utf-8"))
    exchange, old = now.get("exchange"), before.get("exchange")
    if exchange is not None:
        start, end = exchange[3], exchange[4]
    else:
        head = frontmatter_end_utf8(data)
        if 0 < head == len(data):  # not closed, or nothing after it
            return resumed_context(snapshot.decode("utf-8"), data.decode("utf-8"))
        if head:  # raises as the plain path does (a frontmatter too large)
            split_frontmatter(data[:head].decode("utf-8"))
        start, end = head, len(data)
    parts = [
        _excerpt_utf8(data, name, span[2], span[5])
        for name, span in now.items()
        if name != "exchange"
        and span[1] is None
        and _changed(span, before, snapshot, data)
    ]
    if exchange is not None and old is not None:  # the exchange's first change
        change = start + _common_prefix(snapshot, old[3], old[4], data, start)
    else:
        change = _common_prefix(snapshot, 0, len(snapshot), data, 0)
    change = min(max(change, start), end)
    parts.append(_tail_excerpt(data, start, change, end))
    return "\n\n".join(parts)


def _changed(
    span: _Span, before: dict[str, _Span], snapshot: bytes, data: bytes
) -> bool:
    old = before.get(span[0])
    return old is None or snapshot[old[3] : old[4]] != data[span[3] : span[4]]


def _stretches(
    data: bytes,
    other: bytes | None = None,
    theirs: list[tuple[int, int]] | None = None,
    scan: SnapshotScan | None = None,
) -> list[tuple[int, int]] | None:
    """:func:`~agent_doc.document.apply_window.stretches` of ``data`` (plain
    UTF-8; its index or its blocks from ``scan`` when given); ``None`` when
    only the plain path can tell. With ``other`` and its stretches ``theirs``: those of
    ``theirs`` that end before the texts differ are kept (the same bytes,
    neutral on both sides), and only the rest of ``data`` is scanned."""
    if len(data) < WINDOW_FROM or data.startswith(b"\xef\xbb\xbf"):
        return None
    if b"\r" in data or b"\0" in data:
        return None
    kept: list[tuple[int, int]] = []
    if other is not None and theirs is not None:
        same = common_prefix(other, data, chunk=_CHUNK)
        kept = [span for span in theirs if span[1] < same]
    if kept:
        spans = kept + stretches(data, since=kept[-1][1])
    else:
        if scan is None or scan.data is not data:
            scan = SnapshotScan(data)
        spans = stretches(data, scan.index, blocks_of=scan.blocks)
    return spans or None


def _components_utf8(data: bytes, spans: list[tuple[int, int]]) -> dict[str, _Span]:
    """The first component of each name in ``data``, as the plain scan finds
    them, on the bytes (``spans``: its stretches)."""
    texts: list[str] = []  # decoded pieces and placeholders, alternating
    starts: list[int] = []  # where each starts in the small text
    origins: list[int] = []  # and in ``data``
    pos = at = 0
    for index, (lo, hi) in enumerate(spans):
        piece, mark = data[pos:lo].decode("utf-8"), _placeholder(index)
        texts += [piece, mark]
        starts += [at, at + len(piece)]
        origins += [pos, lo]
        at += len(piece) + len(mark)
        pos = hi
    texts.append(data[pos:].decode("utf-8"))
    starts.append(at)
    origins.append(pos)
    small = "".join(texts)
    components = scan_components(small).components
    wanted = {c.open_start for c in components} | {c.open_end for c in components}
    wanted |= {c.close_start for c in components} | {c.close_end for c in components}
    offsets = _to_bytes(wanted, texts, starts, origins)
    named: dict[str, _Span] = {}
    for c in components:
        span = (c.name, c.parent, offsets[c.open_start], offsets[c.open_end],
                offsets[c.close_start], offsets[c.close_end])  # fmt: skip
        named.setdefault(c.name, span)
    return named


def _placeholder(index: int) -> str:
    """The paragraph that stands for stretch ``index`` (as content_ours's)."""
    return f"\0agent-doc-stretch-{index}\0\n\n"


def _to_bytes(
    wanted: set[int], texts: list[str], starts: list[int], origins: list[int]
) -> dict[int, int]:
    """Offsets of the small text (never inside a placeholder) as offsets of
    the bytes, each piece encoded once up to its last offset wanted."""
    out: dict[int, int] = {}
    by_piece: dict[int, list[int]] = {}
    for offset in wanted:
        by_piece.setdefault(bisect_right(starts, offset) - 1, []).append(offset)
    for index, offsets in by_piece.items():
        if index % 2:  # a placeholder: only its start is a piece boundary
            for offset in offsets:
                out[offset] = origins[index]
            continue
        text, base, size = texts[index], starts[index], origins[index]
        prev = base
        for offset in sorted(offsets):
            size += len(text[prev - base : offset - base].encode("utf-8"))
            out[offset], prev = size, offset
    return out


def _common_prefix(a: bytes, a_start: int, a_end: int, b: bytes, b_start: int) -> int:
    """Bytes of ``b[b_start:]`` whose characters begin ``a[a_start:a_end]``
    (the characters' common prefix, as a byte count)."""
    limit = min(a_end - a_start, len(b) - b_start)
    same = 0
    step = _CHUNK
    while step:  # whole chunks first (compared in C), then halve
        while same + step <= limit and (
            a[a_start + same : a_start + same + step]
            == b[b_start + same : b_start + same + step]
        ):
            same += step
        step //= 2
    while (
        same
        and same < limit
        and (a[a_start + same] & 0xC0 == 0x80 or b[b_start + same] & 0xC0 == 0x80)
    ):  # inside a character that differs: back to its first byte
        same -= 1
    return same


def _line_start(data: bytes, pos: int) -> int:
    return data.rfind(b"\n", 0, pos) + 1


def _tail_excerpt(data: bytes, start: int, change: int, end: int) -> str:
    """The exchange's excerpt from the answer heading above ``change`` (at
    most :data:`BEFORE_CHANGE` characters above it) to ``end``; byte offsets."""
    low = _line_start(data, max(start, change - _WIDE * excerpt.BEFORE_CHANGE))
    before = data[low:change].decode("utf-8")  # holds the floor and the heading
    at = len(before)  # ``change`` in ``before``
    first = -1 if start < low else len(data[low:start].decode("utf-8"))
    floor = before.rfind("\n", 0, max(first, at - excerpt.BEFORE_CHANGE, 0)) + 1
    answer = max(before.rfind(head, max(first - 1, 0), at) for head in ANSWER_HEADS)
    tail = max(floor, first, answer + 1 if answer >= 0 else -1)
    tail_at = low + len(before[:tail].encode("utf-8"))
    return _excerpt_utf8(data, "exchange", tail_at, end)


def _excerpt_utf8(data: bytes, name: str, start: int, end: int) -> str:
    """``excerpt._excerpt`` of the decoded text, decoding only what it shows."""
    first = data.count(b"\n", 0, start) + 1
    last = first + data.count(b"\n", start, max(end - 1, start))
    limit = excerpt.TAIL_LIMIT
    half = limit // 2
    if end - start <= _WIDE * limit:
        body = data[start:end].decode("utf-8")
        if len(body) > limit:
            return render_excerpt(
                name, first, last, body[:half], len(body), body[-half:]
            )
        return render_excerpt(name, first, last, body, len(body))
    head_to = start + _WIDE * half  # at least ``half`` characters
    while data[head_to] & 0xC0 == 0x80:  # back to a character's first byte
        head_to -= 1
    tail_from = end - _WIDE * half
    while data[tail_from] & 0xC0 == 0x80:
        tail_from += 1
    head = data[start:head_to].decode("utf-8")[:half]
    tail = data[tail_from:end].decode("utf-8")[-half:]
    return render_excerpt(name, first, last, head, _characters(data, start, end), tail)


def _characters(data: bytes, start: int, end: int) -> int:
    """Characters of the UTF-8 ``data[start:end]`` (whole characters), counted
    a megabyte at a time."""
    count, at = 0, start
    while at < end:
        stop = min(at + (1 << 20), end)
        while stop < end and data[stop] & 0xC0 == 0x80:
            stop += 1
        count += len(data[at:stop].decode("utf-8"))
        at = stop
    return count
