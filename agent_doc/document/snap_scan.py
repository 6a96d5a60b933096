"""Building a snapshot's index: one scan, or only past a shared prefix.

The :class:`~agent_doc.document.snap_index.SnapIndex` of a text, whole
(:func:`index_of`) or carried from an earlier text's (:func:`carried`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from bisect import bisect_right

from agent_doc.document.diff_window import block_spans
from agent_doc.document.diff_window import is_neutral
from agent_doc.document.diff_window import neutral_after
from agent_doc.document.diff_window import stripped_lines
from agent_doc.document.snap_index import EVERY
from agent_doc.document.snap_index import SnapIndex

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.document.snap_index import Segment

__all__ = ["carried", "first_break", "index_of", "spliced"]

_OTHER_BREAKS = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85",
                 b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # fmt: skip
"""Line breaks of ``str.splitlines`` other than ``\\n`` (and ``\\r``), as UTF-8."""


def first_break(data: bytes, start: int = 0) -> int:
    """Where the first line break of ``str.splitlines`` other than ``\\n`` and
    ``\\r`` starts in ``data[start:]`` (-1: none)."""
    found = -1
    for sep in _OTHER_BREAKS:
        if data.find(sep[-1:], start) < 0:  # one byte first: ``memchr``
            continue
        hit = re.compile(re.escape(sep)).search(data, start)
        if hit is not None and (found < 0 or hit.start() < found):
            found = hit.start()
    return found


def index_of(data: bytes, every: int = EVERY) -> SnapIndex:
    """The index of ``data`` (plain UTF-8: no ``\\r``, no BOM), one scan."""
    return _extend(data, 0, [0], [0], first_break(data), every)


def carried(
    old: SnapIndex, same: int, tail: bytes, origin: int, every: int = EVERY
) -> SnapIndex:
    """The index of a text from ``old``, the index of a text sharing its
    first ``same`` bytes: ``old``'s checkpoints within them are kept and only
    the rest, ``tail`` (the text from ``origin = old.checkpoint(same)[0]``
    on), is scanned."""
    keep = bisect_right(old.offsets, same) - 1
    if keep < 0 or old.offsets[keep] != origin:
        raise ValueError(f"the tail must start at checkpoint {old.offsets[keep]}")
    offsets, stripped = old.offsets[: keep + 1], old.stripped[: keep + 1]
    known = old.breaks_from
    # a break wholly in the shared prefix stays the first; otherwise none
    # starts before ``origin`` (``\n\n`` before it, inside the prefix)
    breaks = known if 0 <= known <= same - 3 else _shifted(first_break(tail), origin)
    return _extend(tail, origin, offsets, stripped, breaks, every)


def _shifted(found: int, origin: int) -> int:
    return found if found < 0 else found + origin


def _extend(
    data: bytes,
    origin: int,
    offsets: list[int],
    stripped: list[int],
    breaks: int,
    every: int,
) -> SnapIndex:
    """``offsets`` and ``stripped`` (checkpoints of a text so far, the last
    one ``origin``) continued to its end; ``data``: the text from ``origin``."""
    at = 0
    blocks = block_spans(data)
    while at + every < len(data):  # (``<!--`` before a checkpoint: closed)
        point = neutral_after(data, at + every, at, blocks)
        if point >= len(data):
            break
        stripped.append(stripped[-1] + stripped_lines(data, point, blocks, at))
        offsets.append(origin + point)
        at = point
    return SnapIndex(origin + len(data), offsets, stripped, breaks)


def spliced(
    old: SnapIndex,
    segments: tuple[Segment, ...],
    size: int,
    read: Callable[[int, int], bytes],
    every: int = EVERY,
) -> SnapIndex | None:
    """The index of a text of ``size`` bytes (``read(lo, hi)``: its bytes
    ``[lo, hi)``) that copies ``segments`` of the text ``old`` indexes: each
    segment's checkpoints are kept, shifted, once the first of them is shown
    neutral in the new text too (then the rest of the segment is the same
    text after the same neutral state); the bytes between are scanned.
    ``None`` when ``old``'s text holds an exotic line break."""
    if old.breaks_from >= 0:
        return None
    offsets, stripped, breaks = [0], [0], -1
    for start, source, length in segments:
        lo = bisect_left(old.offsets, source)
        hi = bisect_right(old.offsets, source + length)
        first = old.offsets[lo] + start - source if lo < hi else -1
        if first <= offsets[-1]:
            continue
        breaks = _scanned(read(offsets[-1], first), offsets, stripped, breaks, every)
        at = offsets[-1]
        region = read(at, first) + b"x"  # (a block still open ends past it)
        blocks = block_spans(region)
        if not is_neutral(region, first - at, blocks):
            continue
        count = stripped[-1] + stripped_lines(region, first - at, blocks)
        for i in range(lo, hi):
            offsets.append(old.offsets[i] + start - source)
            stripped.append(count + old.stripped[i] - old.stripped[lo])
    breaks = _scanned(read(offsets[-1], size), offsets, stripped, breaks, every)
    return SnapIndex(size, offsets, stripped, breaks)


def _scanned(
    data: bytes, offsets: list[int], stripped: list[int], breaks: int, every: int
) -> int:
    """Checkpoints of ``data`` (a text from its last checkpoint on) added;
    the text's first exotic break (``breaks`` when one was found before)."""
    origin = offsets[-1]
    if breaks < 0:
        breaks = _shifted(first_break(data), origin)
    _extend(data, origin, offsets, stripped, breaks, every)
    return breaks
