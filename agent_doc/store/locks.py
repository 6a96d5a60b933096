"""Cross-process advisory locks on files (``fcntl.flock``) with a bounded wait.

The lock files stay in place after release: removing a lock file while another
process waits on it would let two processes hold "the" lock at once.

A lock is exclusive across processes and across threads of one process (every
acquisition opens its own file description). Acquiring a lock the same thread
already holds raises :class:`StateError` at once instead of waiting for itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time

from agent_doc.errors import StateError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

DEFAULT_TIMEOUT = 30.0
"""Seconds a lock acquisition waits before giving up."""

_held = threading.local()


def _held_set() -> set[str]:
    held: set[str] | None = getattr(_held, "paths", None)
    if held is None:
        held = set()
        _held.paths = held
    return held


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created with its folders if missing).

    Waits at most ``timeout`` seconds (``0`` = try once) and raises
    :class:`StateError` naming the lock file when it is still taken.
    """
    key = str(path.resolve())
    held = _held_set()
    if key in held:
        raise StateError(f"lock {path} is already held by this thread")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        reason = exc.strerror or exc
        raise StateError(f"cannot open lock file {path}: {reason}") from exc
    try:
        _acquire(fd, path, timeout)
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, path: Path, timeout: float) -> None:
    """Take the flock on ``fd``, polling with a growing pause until the deadline."""
    deadline = time.monotonic() + max(timeout, 0.0)
    pause = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError as exc:
            raise StateError(f"cannot lock {path}: {exc.strerror or exc}") from exc
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise StateError(
                f"timed out after {timeout:g} s waiting for lock {path} "
                "(another agent-doc process holds it)"
            )
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, 0.05)


def remove_free_lock(path: Path, *, dry_run: bool = False) -> bool:
    """Delete the lock file ``path`` unless a process holds it; ``True`` if free.

    The file is unlinked while we hold its lock, so no process is inside it;
    used by ``gc`` for the locks of documents that no longer exist.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    try:
        if not dry_run:
            path.unlink(missing_ok=True)
        return True
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
