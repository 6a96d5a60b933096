"""A text read without joining it: the protocol, and a view over pieces.

The language server keeps an open document as chunks
(:class:`agent_doc_lsp.chunked_text.ChunkedText`); joining them into one
``str`` costs a pass and a copy of the whole text per version (≈ 35 ms and
75 MB for 19 MB stored at 4 bytes a character). The readers that only look
at a window of a version (the "will be sent" marks) accept a
:class:`TextLike`: a ``str``, or a :class:`ChunkView` of one version's
chunks, which slices and compares without joining.

A view is frozen: it holds the version's chunks (immutable ``str`` objects)
and their end offsets, so it stays valid, and safe to read from another
thread, while the document goes on being edited. ``str(view)`` joins once
(kept in the view) for a reader that needs the whole text, and logs it at
debug level (the language server's ``logLevel: debug`` shows each join).
"""

from __future__ import annotations

import bisect
import logging
import threading
from array import array
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from itertools import accumulate
from typing import Protocol
from typing import overload

logger = logging.getLogger(__name__)

_JOIN = threading.Lock()
"""Held while a view joins (one ``str`` per version, whoever asks first)."""


class TextLike(Protocol):
    """What the window readers use of a text; ``str`` satisfies it.

    ``text[a:b]`` is a ``str``; ``str(text)`` is the whole text (a join for
    a view: only for a reader that needs it all)."""

    def __len__(self) -> int: ...
    def __getitem__(self, key: slice, /) -> str: ...
    def startswith(self, prefix: str, start: int, /) -> bool: ...


class ChunkView:
    """One version of a chunked text, read in place (see the module doc)."""

    __slots__ = ("_chunks", "_ends", "_joined", "_on_join")

    def __init__(
        self,
        chunks: Sequence[str],
        ends: Sequence[int] | None = None,
        joined: str | None = None,
    ) -> None:
        """``chunks`` in order (none empty unless it is the only one);
        ``ends``: their cumulative end offsets, when the caller keeps them;
        ``joined``: their join, when it is already made."""
        self._chunks = tuple(chunks)
        self._ends = tuple(accumulate(map(len, chunks)) if ends is None else ends)
        self._joined = joined
        self._on_join: Callable[[str], None] | None = None

    def when_joined(self, callback: Callable[[str], None]) -> None:
        """Have ``callback(text)`` called once the view is joined (the
        server notes the joined ``str``'s lineage then)."""
        self._on_join = callback

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @property
    def joined(self) -> str | None:
        """The whole text when it was already joined (``None``: not yet)."""
        return self._joined

    def forget_join(self) -> None:
        """Let go of the join kept (the view reads its chunks again; a join
        asked later is made again)."""
        with _JOIN:
            self._joined = None

    def __str__(self) -> str:
        """The whole text (joined once, then kept)."""
        joined = self._joined
        if joined is not None:
            return joined
        with _JOIN:  # a worker thread and the loop may ask at once: one join
            if self._joined is None:
                joined = "".join(self._chunks)
                logger.debug(
                    "joined a text of %d characters from %d chunks",
                    len(joined),
                    len(self._chunks),
                )
                if self._on_join is not None:
                    self._on_join(joined)
                    self._on_join = None
                self._joined = joined
            return self._joined

    def _chunk_at(self, offset: int) -> int:
        """Index of the chunk holding ``offset`` (the last one at the end)."""
        return min(bisect.bisect_right(self._ends, offset), len(self._chunks) - 1)

    def _start(self, index: int) -> int:
        return self._ends[index - 1] if index else 0

    @overload
    def __getitem__(self, key: int, /) -> str: ...
    @overload
    def __getitem__(self, key: slice, /) -> str: ...
    def __getitem__(self, key: int | slice, /) -> str:
        """A character or a slice (a step other than 1 joins the text)."""
        if isinstance(key, int):
            size = len(self)
            at = key + size if key < 0 else key
            if not 0 <= at < size:
                raise IndexError("ChunkView index out of range")
            return self.slice(at, at + 1)
        start, end, step = key.indices(len(self))
        if step != 1:
            return str(self)[key]
        return self.slice(start, end)

    def chunk_spans(
        self, offset: int = 0, *, backwards: bool = False
    ) -> Iterator[tuple[int, str]]:
        """``(start, chunk)`` of each chunk, from the one holding ``offset``
        to the last (or, ``backwards``, to the first)."""
        if not self._chunks:
            return
        index = self._chunk_at(max(offset, 0))
        order = range(index, -1, -1) if backwards else range(index, len(self._chunks))
        for at in order:
            yield self._start(at), self._chunks[at]

    def slice(self, start: int, end: int) -> str:
        """``str(self)[start:end]`` (non-negative offsets), joining only the
        chunks that cover it."""
        joined = self._joined  # one read: :meth:`forget_join` may clear it
        if joined is not None:
            return joined[start:end]
        return slice_chunks(self._chunks, self._ends, start, end)

    def startswith(self, prefix: str, start: int = 0, /) -> bool:
        """``str(self).startswith(prefix, start)`` (``start`` ≥ 0), compared
        chunk by chunk in place."""
        joined = self._joined
        if joined is not None:
            return joined.startswith(prefix, start)
        size, count = len(self), len(prefix)
        if start > size or start + count > size:
            return False
        done = 0
        index = self._chunk_at(start)
        while done < count:
            chunk = self._chunks[index]
            inside = start + done - self._start(index)
            step = min(len(chunk) - inside, count - done)
            if step == count:  # all of it in this chunk: no copy
                return chunk.startswith(prefix, inside)
            if inside == 0 and step == len(chunk):
                if not prefix.startswith(chunk, done):
                    return False
            elif not chunk.startswith(prefix[done : done + step], inside):
                return False
            done += step
            index += 1
        return True

    def join_unkept(self) -> str:
        """The whole text as one ``str``, joined for the caller and not kept
        (the view stays small: a reader that needs it all once, such as the
        block scan of a snapshot, lets it go after)."""
        joined = self._joined
        if joined is not None:
            return joined
        joined = "".join(self._chunks)
        logger.debug(
            "joined a text of %d characters from %d chunks (not kept)",
            len(joined),
            len(self._chunks),
        )
        return joined

    def contains(self, sub: str) -> bool:
        """``sub in str(self)``, searched chunk by chunk (and across each
        boundary) in place."""
        joined = self._joined
        if joined is not None:
            return sub in joined
        if not sub:
            return True
        reach = len(sub) - 1
        before = ""
        for chunk in self._chunks:
            if sub in chunk or (reach and sub in before + chunk[:reach]):
                return True
            if reach:
                tail = chunk[-reach:]
                before = tail if len(tail) == reach else (before + tail)[-reach:]
        return False


def slice_chunks(
    chunks: Sequence[str], ends: Sequence[int], start: int, end: int
) -> str:
    """``"".join(chunks)[start:end]`` (``ends``: the chunks' cumulative end
    offsets), joining only the chunks that cover it."""
    start, end = max(start, 0), min(end, ends[-1] if ends else 0)
    if start >= end:
        return ""
    count = len(chunks)
    first = min(bisect.bisect_right(ends, start), count - 1)
    last = min(bisect.bisect_right(ends, end - 1), count - 1)
    base = ends[first - 1] if first else 0
    if first == last:
        return chunks[first][start - base : end - base]
    parts = [chunks[first][start - base :]]
    parts.extend(chunks[first + 1 : last])
    parts.append(chunks[last][: end - (ends[last - 1] if last else 0)])
    return "".join(parts)


def contains(text: TextLike, sub: str) -> bool:
    """``sub in text`` for a ``str`` or a view (no join)."""
    if isinstance(text, ChunkView):
        return text.contains(sub)
    return sub in str(text)


def same_text(text: TextLike, other: TextLike) -> bool:
    """``text == other`` for ``str`` objects or views (no join)."""
    if isinstance(text, str) and isinstance(other, str):
        return text == other
    if len(text) != len(other):
        return False
    if isinstance(other, str):
        return text.startswith(other, 0)
    return all(other.startswith(chunk, start) for start, chunk in spans(text))


def spans(text: TextLike) -> Iterator[tuple[int, str]]:
    """``(start, piece)`` of the pieces of ``text`` in order: a view's
    chunks, or a ``str`` as one piece."""
    if isinstance(text, ChunkView):
        yield from text.chunk_spans()
    else:
        yield 0, str(text)


def rfind(text: TextLike, char: str, start: int, end: int) -> int:
    """``text.rfind(char, start, end)`` of one character (``0 <= start``),
    for a ``str`` or a view (searched chunk by chunk back from ``end``)."""
    if isinstance(text, str) or not isinstance(text, ChunkView):
        return str(text).rfind(char, start, end)
    end = min(end, len(text))
    for at, chunk in text.chunk_spans(max(end - 1, 0), backwards=True):
        if end <= start or at + len(chunk) <= start:
            break
        found = chunk.rfind(char, max(start - at, 0), end - at)
        if found >= 0:
            return at + found
    return -1


def whole(text: TextLike) -> str:
    """``text`` as one ``str``: itself, or a view's join, which the view does
    not keep (see :meth:`ChunkView.join_unkept`)."""
    if isinstance(text, ChunkView):
        return text.join_unkept()
    return str(text)


def line_starts_array(text: TextLike) -> array[int]:
    """Offset of every line start of ``text`` (lines split after each
    ``\\n``), then its length when it does not end with one: the cumulative
    line lengths of ``linediff.split_lines``, 8 bytes a line."""
    starts = array("q", [0])
    for start, piece in spans(text):
        lengths = map(len, piece.split("\n")[:-1])
        after = accumulate(map((1).__add__, lengths), initial=start)
        next(after)  # the piece's own start
        starts.extend(after)
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


PIECE_BYTES = 1 << 16
"""UTF-8 bytes per piece of :func:`decoded_pieces` (about as many characters)."""


def decoded_pieces(data: bytes | memoryview, size: int = PIECE_BYTES) -> ChunkView:
    """``data`` (UTF-8) as a view of pieces decoded one by one: each a
    ``str`` of its own narrowest kind (an ASCII piece costs a byte a
    character however wide the rest), and no whole ``str`` made. Raises
    ``UnicodeDecodeError`` as ``data.decode()`` would."""
    pieces: list[str] = []
    at, total = 0, len(data)
    window = memoryview(data)
    while at < total:
        end = min(at + max(size, 4), total)
        while end < total and data[end] & 0xC0 == 0x80:  # inside a character
            end += 1
        pieces.append(str(window[at:end], "utf-8"))
        at = end
    return ChunkView(pieces or [""])


def decoded_like(data: bytes, like: ChunkView, size: int = PIECE_BYTES) -> ChunkView:
    """:func:`decoded_pieces` of ``data``, holding the very chunks of
    ``like`` wherever ``data`` holds their text at the same place from its
    start, then from its end (a snapshot read while its document is open
    shares the document's chunks: only the part they differ in costs memory
    of its own). Raises ``UnicodeDecodeError`` as ``data.decode()`` would."""
    chunks = [chunk for _start, chunk in like.chunk_spans()]
    head: list[str] = []
    at = 0
    for chunk in chunks:
        encoded = _utf8(chunk)
        if encoded is None or not data.startswith(encoded, at):
            break
        head.append(chunk)
        at += len(encoded)
    tail: list[str] = []
    end = len(data)
    for chunk in reversed(chunks[len(head) :]):
        encoded = _utf8(chunk)
        if encoded is None or end - len(encoded) < at:
            break
        if not data.endswith(encoded, at, end):
            break
        tail.append(chunk)
        end -= len(encoded)
    middle: list[str] = []
    if at < end:
        middle = [
            c for _s, c in decoded_pieces(memoryview(data)[at:end], size).chunk_spans()
        ]
    pieces = [c for c in (*head, *middle, *reversed(tail)) if c]
    return ChunkView(pieces or [""])


def _utf8(text: str) -> bytes | None:
    """``text`` as UTF-8 (``None``: it holds a lone surrogate)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None
