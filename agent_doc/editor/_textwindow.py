"""The window where another text differs from a fixed one, found without copies.

The "will be sent" marks compare the same snapshot with every version of a
buffer. :class:`FixedText` cuts the snapshot once into pieces, so the common
prefix and suffix of the snapshot and a version cost one ``memcmp`` pass of
``str.startswith`` over the version (no slice of it, no line split), and
:meth:`FixedText.window` widens them to whole lines: everything outside the
window is the same lines, at the same offsets (shifted by the length change
after it), in both texts.
"""

from __future__ import annotations

from bisect import bisect_left
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix
from agent_doc.document.linediff import split_lines

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
    """A text compared with many others: its pieces and its line starts."""

    __slots__ = ("_pieces", "size", "starts", "text")

    def __init__(self, text: str, size: int = PIECE) -> None:
        self.text = text
        """The fixed text."""
        self.size = max(size, 1)
        """Characters per piece."""
        self._pieces = [text[i : i + self.size] for i in range(0, len(text), self.size)]
        self.starts = [0, *accumulate(map(len, split_lines(text)))]
        """Offset of every line (``split_lines``), then the text's length."""

    def common_prefix(self, other: str) -> int:
        """Number of equal leading characters of the fixed text and ``other``."""
        at = 0
        for piece in self._pieces:
            if not other.startswith(piece, at):
                end = at + self.size
                return at + common_prefix(self.text[at:end], other[at:end], 0, 512)
            at += len(piece)
        return at

    def common_suffix(self, other: str, limit: int) -> int:
        """Number of equal trailing characters, at most ``limit``."""
        delta = len(other) - len(self.text)
        found = 0
        for index in range(len(self._pieces) - 1, -1, -1):
            piece = self._pieces[index]
            at = index * self.size
            if at + delta < 0 or not other.startswith(piece, at + delta):
                mine = piece
                theirs = other[max(at + delta, 0) : at + delta + len(piece)]
                found += common_suffix(mine, theirs, min(len(mine), len(theirs)), 512)
                break
            found += len(piece)
            if found >= limit:
                break
        return min(found, limit)

    def window(self, other: str) -> Window:
        """The smallest run of whole lines outside which ``other`` equals the
        fixed text (line for line, offsets shifted after the window)."""
        text, starts = self.text, self.starts
        head = self.common_prefix(other)
        tail = self.common_suffix(other, min(len(text), len(other)) - head)
        first = bisect_right(starts, head) - 1
        if first == len(starts) - 1 and text and not text.endswith("\n"):
            first -= 1  # the end of an unfinished last line: that line
        # the window ends at a line start whose "\n" lies in the common tail
        cut = bisect_left(starts, len(text) - tail + 1)
        fixed_end = starts[cut] if cut < len(starts) else len(text)
        fixed_end = max(fixed_end, starts[first])
        return Window(
            first, starts[first], fixed_end, fixed_end + len(other) - len(text)
        )

    def line_count(self) -> int:
        """Number of lines (``split_lines``)."""
        return len(self.starts) - 1


def prefix_at(old: str, text: str, at: int, size: int = PIECE) -> int:
    """Number of leading characters of ``old`` that ``text`` holds at ``at``
    (pieces of ``old`` tested with ``str.startswith``: no copy of ``text``)."""
    done = 0
    while done < len(old):
        piece = old[done : done + size]
        if not text.startswith(piece, at + done):
            theirs = text[at + done : at + done + len(piece)]
            return done + common_prefix(piece, theirs, 0, 512)
        done += len(piece)
    return done


def suffix_at(old: str, text: str, end: int, limit: int, size: int = PIECE) -> int:
    """Number of trailing characters of ``old`` that ``text`` holds just
    before ``end``, at most ``limit``."""
    done = 0
    while done < limit:
        step = min(size, limit - done)
        piece = old[len(old) - done - step : len(old) - done]
        start = end - done - step
        if start < 0 or not text.startswith(piece, start):
            theirs = text[max(start, 0) : end - done]
            return done + common_suffix(
                piece, theirs, min(len(piece), len(theirs)), 512
            )
        done += step
    return done
