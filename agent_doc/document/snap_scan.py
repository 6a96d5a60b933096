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

__all__ = ["NAME_MAX", "carried", "first_break", "first_name", "index_of", "spliced"]

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


_NAMES: list[re.Pattern[bytes]] = []
NAME_MAX = len(b"agent:backlog")
"""Bytes of the longer item-list name (``agent:icebox`` is one less)."""


def first_name(data: bytes | memoryview, start: int = 0, end: int | None = None) -> int:
    """Where the first ``agent:backlog`` or ``agent:icebox`` lying wholly in
    ``data[start:end]`` starts (-1: none): the names of the item lists the
    backlog step tidies. Neither holds a line break, and neither can start
    inside the other or itself."""
    if not _NAMES:  # compiled on first use (test_lazy_re)
        _NAMES.append(re.compile(rb"agent:(?:backlog|icebox)"))
    found = _NAMES[0].search(data, start, len(data) if end is None else end)
    return -1 if found is None else found.start()


def index_of(data: bytes, every: int = EVERY) -> SnapIndex:
    """The index of ``data`` (plain UTF-8: no ``\\r``, no BOM), one scan."""
    index = _extend(data, 0, [0], [0], first_break(data), every)
    index.names_at = first_name(data)
    return index


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
    index = _extend(tail, origin, offsets, stripped, breaks, every)
    index.names_at = _carried_name(old.names_at, tail, origin)
    return index


def _carried_name(names_at: int | None, tail: bytes, origin: int) -> int | None:
    """The first item-list name of a text whose first ``origin`` bytes are
    those of a text whose first is at ``names_at``; ``tail``: the text from
    ``origin`` on, a line start (or 0). No name holds a line break, so one
    starting before ``origin`` lies wholly in the shared bytes."""
    if names_at is None:
        return None
    if 0 <= names_at < origin:  # the same, and no earlier one (it was first)
        return names_at
    return _shifted(first_name(tail), origin)


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
    names = _spliced_name(old.names_at, segments, size, read)
    return SnapIndex(size, offsets, stripped, breaks, names)


def _spliced_name(
    names_at: int | None,
    segments: tuple[Segment, ...],
    size: int,
    read: Callable[[int, int], bytes],
) -> int | None:
    """The first item-list name of the text :func:`spliced` indexes (``None``:
    not known without searching a copied segment whole). A name either lies
    wholly in a copied segment, where the old text had it (and ``names_at``,
    its first, tells whether it had one), or meets the bytes between two
    segments: those are searched with :data:`NAME_MAX` - 1 bytes more on each
    side."""
    best, pos, near = -1, 0, NAME_MAX - 1
    for start, source, length in (*segments, (size, size, 0)):
        if 0 <= best <= start:
            break
        lo, hi = max(pos - near, 0), min(start + near, size)
        found = first_name(read(lo, hi)) if pos < start or 0 < pos < size else -1
        if found >= 0 and (best < 0 or lo + found < best):
            best = lo + found
        pos = start + length
        if length == 0 or (0 <= best <= start):
            continue
        inside = _inside(names_at, start, source, length, read)
        if inside is None:  # (``best`` is -1 here: any name found is before)
            return None
        if inside >= 0 and (best < 0 or inside < best):
            best = inside
    return best


def _inside(
    names_at: int | None, start: int, source: int, length: int,
    read: Callable[[int, int], bytes],
) -> int | None:  # fmt: skip
    """Where the first name lying wholly in the copied segment ``(start,
    source, length)`` starts in the new text (-1: none; ``None``: not known,
    an earlier name of the old text leaves its later ones unknown)."""
    if names_at is None or 0 <= names_at < source:
        return None
    if names_at < 0 or names_at >= source + length:
        return -1  # the old text has none before ``names_at``
    at = start + names_at - source  # the old text's first: whole here too?
    return at if first_name(read(at, min(at + NAME_MAX, start + length))) == 0 else -1


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
