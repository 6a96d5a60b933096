"""A remembered index of a snapshot: its neutral points every ~64 KB.

:mod:`~agent_doc.document.diff_window` cuts the changed window at *neutral
points* (a line start after a blank line, outside every fenced block and
comment block, no ``<!--`` open across it), which takes three passes over the
whole prefix: the fenced-block scan (a fence's state at a point depends on
everything before it), the prefix's stripped line count and the search for a
line break other than ``\\n``. A :class:`SnapIndex` remembers, for one text,
*checkpoints*: neutral points about every :data:`EVERY` bytes, each with the
stripped line count of the text before it, and where the first such line
break is. The scans then start at the last checkpoint before the window.

Whether a point is neutral, and the stripped line count before it, depend
only on the text before it, so the checkpoints of a text that lie within the
prefix it shares with another text hold for that other text too
(:func:`carried`): a new snapshot's index costs a scan of what follows the
shared prefix only. The file beside the snapshot is read and written by
:mod:`agent_doc.store.snapshot_index`.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["EVERY", "INDEX_FROM", "IndexedText", "Segment", "SnapIndex"]

EVERY = 1 << 16
"""Bytes between two checkpoints (about: each is the first neutral point after)."""
INDEX_FROM = 1 << 18
"""Snapshots smaller than this get no index (their scans are as cheap)."""


class SnapIndex:
    """Checkpoints of one text (its UTF-8, ``size`` bytes): neutral points
    with the stripped line count before each, its first exotic break and
    where it first names an item list."""

    __slots__ = ("breaks_from", "names_at", "offsets", "size", "stripped")

    def __init__(
        self,
        size: int,
        offsets: list[int],
        stripped: list[int],
        breaks_from: int,
        names_at: int | None = None,
    ) -> None:
        self.size = size
        """The text's length in bytes."""
        self.offsets = offsets
        """Checkpoints, ascending, the first one 0."""
        self.stripped = stripped
        """Per checkpoint: lines (``str.splitlines``) of the text before it
        with its comments stripped."""
        self.breaks_from = breaks_from
        """Where the first line break other than ``\\n`` and ``\\r`` starts
        (-1: none)."""
        self.names_at = names_at
        """Where the first ``agent:backlog`` or ``agent:icebox`` starts
        (:func:`~agent_doc.document.snap_scan.first_name`; -1: none, ``None``:
        not known): what tells the backlog step whether a document names an
        item list, searching only where it differs from this text."""

    def checkpoint(self, at: int) -> tuple[int, int]:
        """The last checkpoint at or before ``at``: its offset and stripped count."""
        i = max(bisect_right(self.offsets, at) - 1, 0)
        return self.offsets[i], self.stripped[i]

    def breaks_before(self, at: int) -> bool:
        """Whether an exotic line break starts before ``at``."""
        return 0 <= self.breaks_from < at

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SnapIndex) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SnapIndex({self.size}, {len(self.offsets)} checkpoints)"


Segment = tuple[int, int, int]
"""``(start, source_start, length)``: a text's bytes ``[start, start + length)``
are its source's ``[source_start, source_start + length)``."""


class IndexedText:
    """A text's UTF-8 with its index (``None``: not known), and where a new
    text copies it (``segments``, ascending): what a new index is carried from."""

    __slots__ = ("data", "index", "segments")

    def __init__(
        self, data: bytes, index: SnapIndex | None, segments: tuple[Segment, ...] = ()
    ) -> None:
        self.data = data
        self.index = index
        self.segments = segments
