"""A session document as a file: refused unless it is a regular one, never blocking.

A FIFO, socket, device or folder given as a document gets one
:class:`~agent_doc.errors.DocumentError` naming the file and its kind, found
with ``stat`` before anything is created (:func:`require_document`) and again
with ``fstat`` on the descriptor opened with ``O_NONBLOCK``
(:func:`read_regular`: a FIFO swapped in meanwhile cannot block). A file read
again (a write's document under the lock) is compared with the bytes read
before a piece at a time, and those very bytes come back when it still holds
them. :mod:`agent_doc.store.docfile` decodes what is read here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agent_doc.errors import DocumentError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["not_a_document", "read_regular", "require_document", "special_file_error"]


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def not_a_document(path: Path, mode: int) -> DocumentError | None:
    """The error for a path whose ``st_mode`` is not a regular file, else ``None``."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return DocumentError(f"{path} is {kind}, not a document")


def special_file_error(path: Path) -> str | None:
    """Why an existing ``path`` is not a document (FIFO, folder…); else ``None``.

    A missing or unreachable path gives ``None``: callers that need the file
    to exist use :func:`require_document`. Never opens the file.
    """
    try:
        info = Path(path).stat()
    except (OSError, ValueError):
        return None
    error = not_a_document(path, info.st_mode)
    return None if error is None else str(error)


def require_document(path: Path) -> None:
    """Raise :class:`DocumentError` unless ``path`` is an existing regular file.

    Never opens the file, so a FIFO or a device cannot block; a symlink is
    followed (a dangling one is reported as such). Commands call this before
    they create anything (``.agent-doc/``, locks, status).
    """
    try:
        info = Path(path).stat()
    except FileNotFoundError:
        if Path(path).is_symlink():
            raise DocumentError(f"{path}: a symlink to a missing file") from None
        raise DocumentError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise DocumentError(f"cannot read {path}: {reason}") from exc
    error = not_a_document(path, info.st_mode)
    if error is not None:
        raise error


def read_regular(path: Path, known: tuple[bytes, ...] = ()) -> bytes:
    """The bytes of a regular file; opening never blocks (``O_NONBLOCK``).

    When the file has the size of one of ``known`` (bytes read before), it is
    compared with them a piece at a time and those very bytes are returned when
    equal (no second copy of a large document)."""
    require_document(path)
    flags = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise DocumentError(f"{path}: no such file") from exc
    except OSError as exc:
        raise DocumentError(f"cannot read {path}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        error = not_a_document(path, info.st_mode)  # replaced meanwhile
        if error is not None:
            raise error
        try:
            for before in known:
                if len(before) == info.st_size:  # read again, e.g. under the lock
                    return _read_like(handle, before)
            return handle.read()
        except OSError as exc:
            raise DocumentError(f"cannot read {path}: {exc.strerror or exc}") from exc


_READ_CHUNK = 1 << 16
"""Bytes read at a time when a file is compared with bytes read before."""


def _read_like(handle: BinaryIO, known: bytes) -> bytes:
    """The rest of ``handle``'s file, which is probably ``known`` again: read
    and compared a piece at a time, ``known`` itself is returned when equal
    (no second copy of a large document); otherwise the bytes read."""
    pos = 0
    while True:
        piece = handle.read(_READ_CHUNK)
        if not piece:
            return known if pos == len(known) else known[:pos]
        if not known.startswith(piece, pos):
            return known[:pos] + piece + handle.read()
        pos += len(piece)
