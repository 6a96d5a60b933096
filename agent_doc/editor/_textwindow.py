"""The window where another text differs from a fixed one, found without copies.

The "will be sent" marks compare the same snapshot with every version of a
buffer. :class:`FixedText` compares the snapshot piece by piece, so the
common prefix and suffix of the snapshot and a version cost one ``memcmp``
pass of ``str.startswith`` over the version (no slice of it, no line split;
a piece of the snapshot is sliced for the comparison, not kept: the snapshot
is held once, as a ``str`` or as the view of pieces the language server keeps,
see :class:`~agent_doc.editor.snapshots.SnapshotCache`), and
:meth:`FixedText.window` widens them to whole lines: everything outside the
window is the same lines, at the same offsets (shifted by the length change
after it), in both texts.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from bisect import bisect_right
from dataclasses import dataclass

from agent_doc.document.lineage import common_ends
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import line_starts_array

PIECE = 1 << 15
"""Characters per piece of the fixed text."""


@dataclass(frozen=True, slots=True)
class Window:
    """Lines ``[first, fixed_last)`` of the fixed text became lines
    ``[first, other_last)`` of the other; the rest is equal."""

    first: int
    """First line of the window (the same in both texts)."""
    start: int
    """Offset of line ``first`` (the same in both texts)."""
    fixed_end: int
    """End offset of the window in the fixed text (a line start or its end)."""
    other_end: int
    """End offset of the window in the other text."""


class FixedText:
    """A text compared with many others, piece by piece, and its line starts.

    The text is a ``str`` or a view (the language server's snapshot, held as
    pieces): both are read only by slices and ``startswith``."""

    __slots__ = ("_count", "size", "starts", "text")

    def __init__(self, text: TextLike, size: int = PIECE) -> None:
        self.text = text
        """The fixed text."""
        self.size = max(size, 1)
        """Characters per piece."""
        self._count = -(-len(text) // self.size)
        self.starts: array[int] = line_starts_array(text)
        """Offset of every line (``split_lines``), then the text's length
        (8 bytes a line: a list of ints costs about 40)."""

    def common_prefix(self, other: TextLike, known: int = 0) -> int:
        """Number of equal leading characters of the fixed text and ``other``
        (the first ``known`` ones are known to be equal: not compared)."""
        if isinstance(other, ChunkView):
            return self._view_prefix(other, known)
        first = min(max(known, 0) // self.size, self._count)
        at = first * self.size
        for index in range(first, self._count):
            piece = self._piece(index)
            if not other.startswith(piece, at):
                end = at + self.size
                return at + common_prefix(self.text[at:end], other[at:end], 0, 512)
            at += len(piece)
        return at

    def common_suffix(self, other: TextLike, limit: int, known: int = 0) -> int:
        """Number of equal trailing characters, at most ``limit`` (the last
        ``known`` ones are known to be equal: not compared)."""
        if isinstance(other, ChunkView):
            return self._view_suffix(other, limit, known)
        delta = len(other) - len(self.text)
        found = 0
        for index in range(self._count - 1, -1, -1):
            at = index * self.size
            if at >= len(self.text) - known:  # known equal: not sliced
                found += min(self.size, len(self.text) - at)
                if found >= limit:
                    break
                continue
            piece = self._piece(index)
            if at + delta < 0 or not other.startswith(piece, at + delta):
                mine = piece
                theirs = other[max(at + delta, 0) : at + delta + len(piece)]
                found += common_suffix(mine, theirs, min(len(mine), len(theirs)), 512)
                break
            found += len(piece)
            if found >= limit:
                break
        return min(found, limit)

    def window(self, other: TextLike, ends: tuple[int, int] | None = None) -> Window:
        """The smallest run of whole lines outside which ``other`` equals the
        fixed text (line for line, offsets shifted after the window);
        ``ends``: their common prefix and suffix, when known (the suffix may
        reach into the prefix)."""
        text, starts = self.text, self.starts
        if ends is None:
            head = self.common_prefix(other)
            tail = self.common_suffix(other, min(len(text), len(other)) - head)
        else:
            head, tail = ends[0], min(ends[1], min(len(text), len(other)) - ends[0])
        first = bisect_right(starts, head) - 1
        if first == len(starts) - 1 and len(text) and text[-1:] != "\n":
            first -= 1  # the end of an unfinished last line: that line
        # the window ends at a line start whose "\n" lies in the common tail
        cut = bisect_left(starts, len(text) - tail + 1)
        fixed_end = starts[cut] if cut < len(starts) else len(text)
        fixed_end = max(fixed_end, starts[first])
        return Window(
            first, starts[first], fixed_end, fixed_end + len(other) - len(text)
        )

    def _view_prefix(self, other: ChunkView, known: int) -> int:
        """:meth:`common_prefix` of a view: its chunks are compared with the
        fixed text in place (no slice of either until one differs)."""
        text = self.text
        for start, chunk in other.chunk_spans(max(known, 0)):
            if not text.startswith(chunk, start):
                end = start + len(chunk)
                return start + common_prefix(text[start:end], chunk, 0, 512)
        return min(len(text), len(other))

    def _view_suffix(self, other: ChunkView, limit: int, known: int) -> int:
        """:meth:`common_suffix` of a view, compared chunk by chunk in place."""
        text, delta = self.text, len(other) - len(self.text)
        found = min(max(known, 0), limit)
        end = len(other) - found  # what lies before ``end`` is compared
        for start, chunk in other.chunk_spans(end - 1, backwards=True):
            if found >= limit or end <= 0:
                break
            piece = chunk if start + len(chunk) == end else chunk[: end - start]
            at = start - delta  # where ``piece`` would lie in the fixed text
            if at < 0 or not text.startswith(piece, at):
                mine = text[max(at, 0) : end - delta]
                found += common_suffix(mine, piece, min(len(mine), len(piece)), 512)
                break
            found += len(piece)
            end = start
        return min(found, limit)

    def _piece(self, index: int) -> str:
        """Piece ``index`` of the fixed text (sliced when compared)."""
        return self.text[index * self.size : (index + 1) * self.size]

    def line_count(self) -> int:
        """Number of lines (``split_lines``)."""
        return len(self.starts) - 1


def prefix_at(
    old: TextLike,
    text: str,
    at: int,
    size: int = PIECE,
    lo: int = 0,
    hi: int | None = None,
) -> int:
    """Number of leading characters of ``old[lo:hi]`` that ``text`` holds at
    ``at`` (pieces of ``old`` tested with ``str.startswith``: no copy of
    ``text``)."""
    hi = len(old) if hi is None else hi
    done = 0
    while done < hi - lo:
        piece = old[lo + done : min(lo + done + size, hi)]
        if not text.startswith(piece, at + done):
            theirs = text[at + done : at + done + len(piece)]
            return done + common_prefix(piece, theirs, 0, 512)
        done += len(piece)
    return done


def suffix_at(
    old: TextLike,
    text: str,
    end: int,
    limit: int,
    size: int = PIECE,
    hi: int | None = None,
) -> int:
    """Number of trailing characters of ``old[:hi]`` that ``text`` holds just
    before ``end``, at most ``limit``."""
    hi = len(old) if hi is None else hi
    done = 0
    while done < limit:
        step = min(size, limit - done)
        piece = old[hi - done - step : hi - done]
        start = end - done - step
        if start < 0 or not text.startswith(piece, start):
            theirs = text[max(start, 0) : end - done]
            return done + common_suffix(
                piece, theirs, min(len(piece), len(theirs)), 512
            )
        done += step
    return done


def known_ends(
    old: TextLike, old_at: int, old_len: int, text: str, at: int, length: int
) -> tuple[int, int]:
    """Leading and trailing characters that ``old[old_at:old_at + old_len]``
    and ``text[at:at + length]`` are known to share without reading them:
    from the note that ``text`` is an edit of ``old``
    (:func:`~agent_doc.document.lineage.common_ends`), when the spans start
    (or end) as far from the texts' start (or end); ``(0, 0)`` otherwise.
    Each is at most the shorter span (the two may overlap)."""
    short = min(old_len, length)
    if old is text:
        same = old_at == at and old_len == length
        return (short, short) if same else (0, 0)
    agreed = common_ends(old, text)
    if agreed is None:
        return 0, 0
    head = min(max(agreed.head - at, 0), short) if old_at == at else 0
    after = len(old) - old_at - old_len
    tail = 0
    if after == len(text) - at - length:
        tail = min(max(agreed.tail - after, 0), short)
    return head, tail


def spans_equal(old: TextLike, old_at: int, text: str, at: int, length: int) -> bool:
    """Whether ``old[old_at:old_at + length] == text[at:at + length]``,
    comparing only what :func:`known_ends` does not know."""
    head, tail = known_ends(old, old_at, length, text, at, length)
    if head + tail >= length:
        return True
    middle = length - tail - head
    lo = old_at + head
    return prefix_at(old, text, at + head, lo=lo, hi=lo + middle) == middle


def span_ends(
    old: TextLike, old_at: int, old_len: int, text: str, at: int, length: int
) -> tuple[int, int]:
    """``(head, tail)``: the leading characters of ``old[old_at:old_at +
    old_len]`` that ``text`` holds at ``at``, then the trailing ones it holds
    before ``at + length``, at most the shorter span's length minus
    ``head`` (compared from what :func:`known_ends` knows on)."""
    known_head, known_tail = known_ends(old, old_at, old_len, text, at, length)
    end = old_at + old_len
    head = known_head + prefix_at(
        old, text, at + known_head, lo=old_at + known_head, hi=end
    )
    limit = max(min(old_len, length) - head, 0)
    known_tail = min(known_tail, limit)
    tail = known_tail + suffix_at(
        old, text, at + length - known_tail, limit - known_tail, hi=end - known_tail
    )
    return head, tail
