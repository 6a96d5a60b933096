"""Reading and writing session documents on disk, keeping their BOM and CRLF.

Internally agent-doc works on ``\\n``-terminated text without a BOM.
:func:`read_document` records what it removed and :func:`write_document` puts it
back, so a Windows-style document stays Windows-style. Both are re-exported by
:mod:`agent_doc.store.state`, which is where callers should import them from.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter_text import frontmatter_end_utf8
from agent_doc.document.surrogates import encode_utf8
from agent_doc.errors import DocumentError
from agent_doc.errors import FrontmatterError
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.regular_file import read_regular
from agent_doc.store.regular_file import require_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Literal

    Newline = Literal["\n", "\r\n"]

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark."""


class DocumentFile(Record):
    """A document read from disk: its ``\\n``-ended text and how it was stored."""

    __slots__ = ("text", "newline", "bom")

    def __init__(self, text: str, newline: Newline = "\n", bom: bool = False) -> None:
        self.text = text
        """The content without a BOM; CRLF made ``\\n`` when the file used CRLF only."""
        self.newline = newline
        """``"\\r\\n"`` when every line ending in the file was CRLF, else ``"\\n"``."""
        self.bom = bom
        """True when the file started with a UTF-8 byte order mark."""


class ReadCache:
    """What one command has read of its documents, to read them again cheaply.

    A write reads the baseline and the document, then the document again under
    the lock (only a comparison of bytes then), and a disk merge takes the
    UTF-8 of both from here (:meth:`utf8_of`) instead of encoding them again.
    One cache lives as long as one write (:func:`agent_doc.write.pipeline.
    write_response` makes it); nothing is kept between commands or calls that
    do not share it.
    """

    KEPT_READS = 2
    """How many :meth:`read_document` results are kept (newest first)."""

    def __init__(self) -> None:
        self._reads: list[tuple[bytes, DocumentFile]] = []
        self._checked: bytes | None = None
        self._checked_path: Path | None = None
        self._shared: tuple[bytes, bytes, int] | None = None

    def _known(self) -> tuple[bytes, ...]:
        seen = tuple(data for data, _ in self._reads)
        return seen if self._checked is None else (self._checked, *seen)

    def read_document(self, path: Path) -> DocumentFile:
        """:func:`read_document`, remembering the bytes and the result."""
        data = read_regular(path, self._known())
        for seen, document in self._reads:
            if seen == data:  # e.g. re-read under the lock
                return document
        document = _decode_document(path, data)
        self._reads.insert(0, (data, document))
        del self._reads[self.KEPT_READS :]
        return document

    def document_of(self, path: Path, data: bytes) -> DocumentFile:
        """The :class:`DocumentFile` of ``data``, bytes of ``path`` read before
        (remembered as :meth:`read_document` remembers its reads)."""
        for seen, document in self._reads:
            if seen is data:
                return document
        document = _decode_document(path, data)
        self._reads.insert(0, (data, document))
        del self._reads[self.KEPT_READS :]
        return document

    def utf8_of(self, text: str) -> bytes | None:
        """The bytes :meth:`read_document` read for the document whose text is
        ``text`` (that very object), when they are exactly its UTF-8 (no BOM,
        no CRLF turned into ``\\n``); else ``None``."""
        for data, document in self._reads:
            if document.text is text and document.newline == "\n" and not document.bom:
                return data
        return None

    def read_plain_utf8(
        self, path: Path, *, again: bool = True, like: bytes | None = None
    ) -> bytes | None:
        """:func:`read_plain_utf8`, remembering the bytes it checked; with
        ``again=False`` the bytes this cache checked last for ``path`` are
        answered without reading it again (a write's baseline: what changed
        since is merged). ``like``: valid UTF-8 the file probably begins
        with (the snapshot, checked): only the bytes past the prefix they
        share are decoded to check them."""
        if not again and self._checked is not None and self._checked_path == path:
            return self._checked
        data = read_regular(path, self._known())
        for seen, document in self._reads:  # read (and checked) before
            if seen == data:
                return data if document.newline == "\n" and not document.bom else None
        if data.startswith(BOM) or b"\r" in data:
            return None
        if data == self._checked:
            return data
        shared = _check_utf8(path, data, like)
        self._checked, self._checked_path = data, path
        if like is not None:
            self._shared = (data, like, shared)
        return data

    def shared_prefix(self, data: bytes, like: bytes) -> int | None:
        """The length of the common prefix of ``data`` and ``like`` (those
        very objects), when :meth:`read_plain_utf8` compared them; else ``None``."""
        if self._shared is None or self._shared[0] is not data:
            return None
        return self._shared[2] if self._shared[1] is like else None


def read_document_bytes(path: Path) -> bytes:
    """The raw bytes of a document (BOM and CRLF kept, nothing decoded), with
    :func:`read_document`'s errors for a missing, special or unreadable file;
    :func:`decode_document` makes them the :class:`DocumentFile`."""
    return read_regular(path)


def decode_document(path: Path, data: bytes) -> DocumentFile:
    """:func:`read_document` of bytes already read (:func:`read_document_bytes`)."""
    return _decode_document(path, data)


def read_document(path: Path, reads: ReadCache | None = None) -> DocumentFile:
    """Read a UTF-8 document, stripping a BOM and normalising all-CRLF endings.

    Raises :class:`DocumentError` naming the file when it is missing, not a
    regular file (a folder, FIFO, socket or device: refused without blocking),
    unreadable, contains NUL bytes or is not valid UTF-8. ``reads`` is the
    command's :class:`ReadCache`, when it reads the file more than once.
    """
    if reads is not None:
        return reads.read_document(path)
    return _decode_document(path, read_regular(path))


def read_frontmatter_text(
    path: Path, reads: ReadCache | None = None, like: bytes | None = None
) -> str:
    """The document's text through its frontmatter block (all of it when the
    file is not plain UTF-8): what :func:`parse_frontmatter` reads, without
    decoding a large document. Raises as :func:`read_document` does.

    Without ``reads`` the file is checked a chunk at a time and never held
    whole (a command that reads it again later does not keep two copies'
    worth of heap); with ``reads`` its bytes are kept there for the command.
    ``like`` (without ``reads``): valid UTF-8 the file probably begins with
    (the snapshot, checked): the bytes they share are not decoded again.
    """
    if reads is None:
        head = _checked_head(path, like)
        if head is not None:
            return head
        return read_document(path).text  # not plain: as read, or its error
    data = read_plain_utf8(path, reads)
    if data is None:
        return read_document(path, reads).text
    return data[: frontmatter_end_utf8(data)].decode("utf-8")


def read_document_form(path: Path, like: bytes | None = None) -> DocumentFile:
    """How the document is stored (BOM, line endings) with the checks of
    :func:`read_document`; its ``text`` is left empty when the file is plain
    UTF-8 (checked a chunk at a time, never decoded whole). ``like``: valid
    UTF-8 the file probably begins with (the snapshot, checked): the bytes it
    shares with them are not decoded again."""
    if _checked_head(path, like) is not None:
        return PLAIN
    return read_document(path)


def is_utf8(data: bytes, like: bytes | None = None) -> bool:
    """Whether ``data`` is valid UTF-8 (checked a chunk at a time, no text kept).
    ``like``: valid UTF-8 (a document, checked); the whole characters ``data``
    begins with that are its own are not decoded again."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    begin = 0 if like is None else _char_start(like, _shared_prefix(data, like))
    try:
        for start in range(begin, len(data), _STREAM_CHUNK):
            decoder.decode(view[start : start + _STREAM_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_STREAM_CHUNK = 1 << 20
"""Bytes read at a time by :func:`_checked_head`."""


def _checked_head(path: Path, like: bytes | None = None) -> str | None:
    """The frontmatter text of a plain UTF-8 ``path`` (no BOM, no ``\\r``, no
    NUL, valid), checked a chunk at a time; ``None`` when it is not so, or its
    frontmatter does not end in the first chunk (:func:`read_document` then
    reads it, or raises its error). ``like``: valid UTF-8; the chunks that
    are its own bytes are not decoded (the characters they hold are whole
    but the last one, which is decoded with the first chunk that differs)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        first = chunk = handle.read(_STREAM_CHUNK)
        size = 0
        known, shared = like or b"", like is not None  # all so far ``like``'s
        while True:
            if b"\0" in chunk or b"\r" in chunk:
                return None
            if shared and chunk and known.startswith(chunk, size):
                size += len(chunk)
                chunk = handle.read(_STREAM_CHUNK)
                continue
            try:
                if shared:  # the character the shared bytes end in, if cut
                    shared = False
                    decoder.decode(known[_char_start(known, size) : size])
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError:
                return None
            if not chunk:
                break
            size += len(chunk)
            chunk = handle.read(_STREAM_CHUNK)
    end = frontmatter_end_utf8(first)
    if first.startswith(BOM) or (end == len(first) and size > len(first)):
        return None
    return first[:end].decode("utf-8")


def require_session_document(path: Path, reads: ReadCache | None = None) -> None:
    """:func:`require_document`, and the frontmatter must parse.

    The one rule of every command that takes a session document (``run``,
    ``diff``, ``outline``, ``compact``, ``mode``…): a broken frontmatter is
    refused before anything happens, with one error naming the file. A plain
    UTF-8 file is checked on its bytes and only its frontmatter decoded;
    ``reads`` keeps them for the command (a write then checks them once).
    """
    require_document(path)
    text = read_frontmatter_text(path, reads)
    try:
        parse_frontmatter(text)
    except FrontmatterError as exc:
        raise FrontmatterError(f"{path}: {exc}") from exc


PLAIN = DocumentFile("", "\n", False)
"""How a plain document is stored (UTF-8, ``\\n`` endings, no BOM), for
:func:`write_document` when only its bytes were read (:func:`read_plain_utf8`)."""

_CHECK_CHUNK = 1 << 14
"""Bytes decoded at a time to check a document is UTF-8 without keeping its text."""


def read_plain_utf8(path: Path, reads: ReadCache | None = None) -> bytes | None:
    """The document's bytes when they are plain UTF-8 (no BOM, no ``\\r``),
    checked without building its text; ``None`` when it is not plain (then
    :func:`read_document` reads it). Raises as :func:`read_document` does.

    A disk merge works on these bytes (:mod:`agent_doc.write.disk`); on a large
    document with an emoji its text would take four times their size.
    """
    return (reads if reads is not None else ReadCache()).read_plain_utf8(path)


def _check_utf8(path: Path, data: bytes, like: bytes | None = None) -> int:
    """Raise as :func:`read_document` would when ``data`` is not a document's
    UTF-8 (invalid UTF-8 or a NUL byte), without building its text.
    ``like``: valid UTF-8; the whole characters ``data`` begins with that are
    its own are not decoded again. Returns the length of the two's common
    prefix (0 without ``like``)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    shared = 0 if like is None else _shared_prefix(data, like)
    begin = 0 if like is None else _char_start(like, shared)
    try:
        for start in range(begin, len(data), _CHECK_CHUNK):
            chunk = data[start : start + _CHECK_CHUNK]
            decoder.decode(chunk, final=start + _CHECK_CHUNK >= len(data))
    except UnicodeDecodeError:
        _decode_document(path, data)  # raises, naming the line
        raise  # pragma: no cover - the full decode fails where the check did
    if b"\0" in data:
        _decode_document(path, data)  # raises, naming the line
    return shared


_COMPARE_CHUNK = 1 << 16
"""Bytes compared at a time by :func:`_shared_prefix`."""


def _shared_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of ``a`` and ``b`` (compared in place,
    a chunk at a time)."""
    size, same, step = min(len(a), len(b)), 0, _COMPARE_CHUNK
    view = memoryview(a)
    while step:
        while same + step <= size and b.startswith(view[same : same + step], same):
            same += step
        step //= 2
    return same


def _char_start(data: bytes, at: int) -> int:
    """``at`` moved back to the start of the character of the UTF-8 ``data``
    it falls in (``at`` itself at a character's start or the end)."""
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at -= 1
    return at


def _decode_document(path: Path, data: bytes) -> DocumentFile:
    bom = data.startswith(BOM)
    if bom:
        data = data[len(BOM) :]
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DocumentError(f"{path}: NUL byte on line {line} (a binary file?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DocumentError(f"{path}: not valid UTF-8 (line {line})") from exc
    crlf = text.count("\r\n") if b"\r" in data else 0  # memchr on the bytes first
    if crlf and crlf == text.count("\n") and crlf == text.count("\r"):
        return DocumentFile(text.replace("\r\n", "\n"), "\r\n", bom)
    return DocumentFile(text, "\n", bom)


def encode_document(original: DocumentFile, text: str) -> bytes:
    """The bytes to store for ``text`` given how ``original`` was stored."""
    if original.newline == "\r\n":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    data = encode_utf8(text)
    return BOM + data if original.bom else data


def check_writable(path: Path) -> os.stat_result | None:
    """Raise :class:`DocumentError` unless :func:`write_document` can replace
    ``path`` (a regular file, writable, in a writable folder); its ``stat``
    (``None`` when it does not exist yet). Nothing is written."""
    target = path.resolve()
    folder = target.parent
    try:
        info: os.stat_result | None = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise DocumentError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise DocumentError(f"cannot write {path}: not a regular file")
        if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise DocumentError(f"cannot write {path}: the file is read-only")
    try:
        folder_mode = folder.stat().st_mode
    except OSError as exc:
        raise DocumentError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if not folder_mode & 0o200 or not os.access(folder, os.W_OK | os.X_OK):
        raise DocumentError(f"cannot write {path}: its folder {folder} is read-only")
    return info


def write_document(
    path: Path,
    original: DocumentFile,
    text: str | None,
    data: bytes | memoryview | tuple[bytes | memoryview, ...] | None = None,
) -> None:
    """Atomically replace the document with ``text``, restoring BOM, CRLF and mode.

    ``data``, when given, is ``encode_document(original, text)`` already
    computed by the caller (a large text is then not encoded twice), or its
    pieces in order; ``text`` may then be ``None`` (a merge that produced only
    the bytes).

    A symlinked document is written through the link (the link stays a link).
    Raises :class:`DocumentError` when the file or its folder is read-only (no
    write permission bit, even for root); the file on disk is then untouched.
    """
    info = check_writable(path)
    mode = stat.S_IMODE(info.st_mode) if info is not None else None
    if data is None:
        if text is None:
            raise ValueError("write_document needs the text or its bytes")
        data = encode_document(original, text)
    atomic_write_bytes(path.resolve(), data, mode=mode, error=DocumentError)
