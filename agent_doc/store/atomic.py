"""Atomic file replacement: a reader sees the old file or the new one, never a mix.

The bytes go to a temporary file in the target's own folder (same filesystem),
which is flushed and fsynced, then renamed over the target; the folder is fsynced
so the rename itself survives a crash.
"""

from __future__ import annotations

import os

from agent_doc.document.surrogates import encode_utf8
from agent_doc.errors import AgentDocError
from agent_doc.errors import StateError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_MODE = 0o644
"""Permission bits of a file created by an atomic write when none is given."""


def atomic_write_bytes(
    path: Path,
    data: bytes | memoryview | tuple[bytes | memoryview, ...],
    *,
    mode: int | None = None,
    error: type[AgentDocError] = StateError,
    durable: bool = True,
) -> os.stat_result:
    """Replace ``path`` with ``data`` atomically, creating missing parent folders;
    the written file's status (``fstat``: a rename keeps it).

    ``data`` may be a tuple of pieces, written one after the other (a large
    text and its small header need not be joined into one copy first).

    ``mode`` sets the permission bits; by default an existing file keeps its own
    and a new file gets :data:`DEFAULT_MODE`. Failures raise ``error`` (a
    :class:`StateError` unless the caller says otherwise) naming the file; the
    target is left untouched and no temporary file stays behind.
    ``durable=False`` skips both fsyncs (still atomic for every reader): for
    short-lived state such as the busy status, which is stale after a crash
    of the machine anyway.
    """
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        if mode is None:
            try:
                mode = path.stat().st_mode & 0o7777
            except FileNotFoundError:
                mode = DEFAULT_MODE
        tmp = parent / f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise error(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        try:
            for piece in data if isinstance(data, tuple) else (data,):
                view = memoryview(piece)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
            status = os.fstat(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise error(f"cannot write {path}: {exc.strerror or exc}") from exc
    if durable:
        fsync_dir(parent)
    return status


def atomic_write_text(
    path: Path,
    text: str,
    *,
    mode: int | None = None,
    error: type[AgentDocError] = StateError,
    durable: bool = True,
) -> None:
    """Replace ``path`` with ``text`` as UTF-8, atomically (no newline translation).

    A lone surrogate is written as U+FFFD (:mod:`agent_doc.document.surrogates`).
    """
    data = encode_utf8(text)
    atomic_write_bytes(path, data, mode=mode, error=error, durable=durable)


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (renames, creations) to disk; best effort."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
