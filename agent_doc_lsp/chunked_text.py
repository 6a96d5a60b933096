"""A text kept as chunks, so an edit costs O(chunk), not O(text).

A ``str`` cannot be edited in place: ``s[:a] + new + s[b:]`` copies all of it,
about 20 ms for 20 MB (80 MB when one astral character makes CPython store
4 bytes a character). :class:`ChunkedText` holds the text as pieces of about
:data:`CHUNK` characters with their cumulative end offsets and newline counts;
an edit rebuilds the one or two pieces it touches and shifts a few hundred
integers. The whole string is joined only when something reads it
(:meth:`ChunkedText.text`), and kept until the next edit.

Lines are ``\\n``-separated (a ``\\r`` before it is an ordinary last
character), as in :class:`agent_doc_lsp.convert.LineIndex`.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Sequence
from typing import overload

from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import slice_chunks

CHUNK = 1 << 16
"""Target size of a chunk, in characters (pieces stay within ¼–2× of it)."""


def newlines(text: str) -> array[int]:
    """Offsets of every ``\\n`` in ``text``, in an array (4 bytes each for a
    chunk: a list of ints costs about 40)."""
    ends = itertools.accumulate(
        map((1).__add__, map(len, text.split("\n")[:-1])), initial=-1
    )
    next(ends)  # the -1 it starts from
    return array("I" if len(text) < 1 << 32 else "q", ends)


def _pieces(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` (none empty)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


class ChunkedText:
    """An editable text of chunks with cumulative offsets and line counts."""

    __slots__ = ("_chunks", "_ends", "_lines", "_marks", "_size", "_text", "_view")

    def __init__(self, text: str = "", size: int = CHUNK) -> None:
        self._size = max(size, 4)
        self._chunks: list[str] = []
        self._text: str | None = text
        self._marks: list[array[int] | None] = []
        self._ends: list[int] = []
        self._lines: list[int] = []
        self._view: ChunkView | None = None
        self._load(text)

    def _load(self, text: str) -> None:
        """Cut ``text`` into chunks and index them."""
        self._chunks = _pieces(text, self._size)
        self._text = text
        self._view = None
        self._marks = [None] * len(self._chunks)
        self._reindex(0, [c.count("\n") for c in self._chunks])

    def _reindex(self, first: int, counts: list[int]) -> None:
        """Recompute the cumulative arrays from chunk ``first`` on;
        ``counts`` are the newline counts of the chunks from ``first``."""
        end = self._ends[first - 1] if first else 0
        lines = self._lines[first - 1] if first else 0
        self._ends[first:] = itertools.accumulate(
            (len(c) for c in self._chunks[first:]), initial=end
        )
        del self._ends[first]
        self._lines[first:] = itertools.accumulate(counts, initial=lines)
        del self._lines[first]

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def text(self) -> str:
        """The whole text (joined once per edit, shared with :meth:`view`)."""
        if self._text is None:
            self._text = str(self.view())
        return self._text

    def view(self) -> ChunkView:
        """The current version, read in place (one object per edit): frozen,
        so another thread may read it while edits go on."""
        if self._view is None:
            self._view = ChunkView(self._chunks, self._ends, self._text)
        return self._view

    def kept_join(self) -> str | None:
        """The joined text kept for this version (``None``: none is)."""
        if self._text is not None:
            return self._text
        return None if self._view is None else self._view.joined

    def forget_join(self) -> None:
        """Let go of the joined text kept for this version (:meth:`text`
        joins again if asked)."""
        self._text = None

    @property
    def joined(self) -> bool:
        """Whether :meth:`text` is ready without joining."""
        return self._text is not None or (
            self._view is not None and self._view.joined is not None
        )

    def _chunk_at(self, offset: int) -> int:
        """Index of the chunk holding ``offset`` (the last one at the end)."""
        return min(bisect.bisect_right(self._ends, offset), len(self._chunks) - 1)

    def _start(self, index: int) -> int:
        return self._ends[index - 1] if index else 0

    def slice(self, start: int, end: int) -> str:
        """``text()[start:end]`` without joining the whole text."""
        if self._text is not None:
            return self._text[start:end]
        return slice_chunks(self._chunks, self._ends, start, end)

    def equals(self, other: str) -> bool:
        """Whether the text is ``other`` (compared chunk by chunk, no join)."""
        if self._text is not None:
            return self._text == other
        if len(other) != len(self):
            return False
        starts = itertools.chain((0,), self._ends)
        return all(
            other.startswith(c, a) for c, a in zip(self._chunks, starts, strict=False)
        )

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace ``[start, end)`` by ``new`` (offsets clamped to the text)."""
        size = len(self)
        start = min(max(start, 0), size)
        end = min(max(end, start), size)
        if not self._chunks:
            self._load(new)
            return
        first, last = self._chunk_at(start), self._chunk_at(end)
        chunks = self._chunks
        piece = (
            chunks[first][: start - self._start(first)]
            + new
            + chunks[last][end - self._start(last) :]
        )
        if len(piece) < self._size // 4 and len(chunks) > 1:
            if last + 1 < len(chunks):
                last += 1
                piece += chunks[last]
            elif first > 0:
                first -= 1
                piece = chunks[first] + piece
        pieces = _pieces(piece, self._size) if len(piece) > 2 * self._size else [piece]
        if not piece and len(chunks) > last - first + 1:
            pieces = []
        chunks[first : last + 1] = pieces
        self._marks[first : last + 1] = [None] * len(pieces)
        counts = [p.count("\n") for p in pieces]
        lines = self._lines
        counts.extend(
            b - a for a, b in zip(lines[last:-1], lines[last + 1 :], strict=True)
        )
        self._reindex(first, counts)
        self._text = self._view = None

    def line_count(self) -> int:
        """Number of lines (newlines + 1)."""
        return (self._lines[-1] if self._lines else 0) + 1

    def _marks_of(self, index: int) -> array[int]:
        found = self._marks[index]
        if found is None:
            found = self._marks[index] = newlines(self._chunks[index])
        return found

    def line_start(self, line: int) -> int:
        """Offset of the first character of ``line`` (``len`` past the last)."""
        if line <= 0:
            return 0
        index = bisect.bisect_left(self._lines, line)  # chunk of newline #line
        if index >= len(self._chunks):
            return len(self)
        before = self._lines[index - 1] if index else 0
        return self._start(index) + self._marks_of(index)[line - 1 - before] + 1

    def newlines_before(self, offset: int) -> int:
        """Number of ``\\n`` in ``text()[:offset]`` (two bisects, no count)."""
        offset = min(max(offset, 0), len(self))
        if not self._chunks or offset == 0:
            return 0
        index = self._chunk_at(offset)
        before = self._lines[index - 1] if index else 0
        inside = bisect.bisect_left(self._marks_of(index), offset - self._start(index))
        return before + inside

    def line_end(self, line: int) -> int:
        """Offset of the ``\\n`` ending ``line`` (``len`` for the last line)."""
        if line + 1 >= self.line_count():
            return len(self)
        return self.line_start(line + 1) - 1

    def line_starts(self) -> list[int]:
        """Offsets of the first character of every line."""
        return join_line_starts(self.line_start_parts())

    def line_start_parts(self) -> LineStartParts:
        """What :func:`join_line_starts` makes the line starts of from: per
        chunk, its offset + 1 and its newlines (kept across edits, so only the
        chunks edited since the last call are searched). The lists are never
        changed afterwards: a worker thread may join them while edits go on."""
        return [
            (self._start(index) + 1, self._marks_of(index))
            for index in range(len(self._chunks))
        ]


LineStartParts = list[tuple[int, Sequence[int]]]
"""Per chunk: its offset + 1 and the offsets of its newlines in it."""


def join_line_starts(parts: LineStartParts) -> list[int]:
    """Offsets of the first character of every line, from
    :meth:`ChunkedText.line_start_parts`."""
    starts = [0]
    for base, marks in parts:
        starts.extend(map(base.__add__, marks))
    return starts


class ChunkLineStarts(Sequence[int]):
    """The line starts :func:`join_line_starts` gives, read from the parts in
    place: O(chunks) to make instead of one list of every line start per
    version, two bisects to find the line of an offset."""

    __slots__ = ("_bases", "_count", "_firsts", "_marks")

    def __init__(self, parts: LineStartParts) -> None:
        kept = [(base, marks) for base, marks in parts if marks]
        self._bases = [base for base, _marks in kept]
        self._marks = [marks for _base, marks in kept]
        self._firsts = list(itertools.accumulate(map(len, self._marks), initial=1))
        """Line number of each part's first line start, then the line count."""
        self._count = self._firsts.pop()

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, line: int) -> int: ...
    @overload
    def __getitem__(self, line: slice) -> Sequence[int]: ...
    def __getitem__(self, line: int | slice) -> int | Sequence[int]:
        if isinstance(line, slice):
            return [self[i] for i in range(*line.indices(self._count))]
        if line < 0:
            line += self._count
        if not 0 <= line < self._count:
            raise IndexError(line)
        if line == 0:
            return 0
        part = bisect.bisect_right(self._firsts, line) - 1
        return self._bases[part] + self._marks[part][line - self._firsts[part]]

    def line_of(self, offset: int) -> int:
        """``bisect_right(starts, offset) - 1``: the line holding ``offset``."""
        part = bisect.bisect_right(self._bases, offset) - 1
        if part < 0:  # before every newline: line 0 (-1 before the text)
            return 0 if offset >= 0 else -1
        found = bisect.bisect_right(self._marks[part], offset - self._bases[part])
        return self._firsts[part] + found - 1
