"""The ``watch`` daemon's pid file and lock: start once, status, stop (§7.23).

``.agent-doc/watch.pid`` holds the daemon's pid (decimal). Whether a daemon
runs is decided by ``.agent-doc/watch.lock``: the daemon holds an exclusive
``flock`` on it for its whole life, so a crashed daemon can never look alive
and a reused pid is never signalled. ``--stop`` sends SIGTERM to the pid of a
running daemon and waits (bounded) until it released the lock; a pid file
without a running daemon is stale and removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import StateError
from agent_doc.store.state import atomic_write_text


def pid_path(root: Path) -> Path:
    """``<root>/.agent-doc/watch.pid``."""
    return root / ".agent-doc" / "watch.pid"


def lock_path(root: Path) -> Path:
    """``<root>/.agent-doc/watch.lock`` (held by the running daemon)."""
    return root / ".agent-doc" / "watch.lock"


def read_pid(root: Path) -> int | None:
    """The pid in ``watch.pid``, or ``None`` when absent or malformed."""
    try:
        text = pid_path(root).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _lock_held(root: Path) -> bool:
    try:
        fd = os.open(lock_path(root), os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@dataclass(frozen=True, slots=True)
class WatchStatus:
    """Whether a watch daemon runs for a project."""

    root: Path
    running: bool
    pid: int | None
    stale_pid_removed: bool = False

    def to_json(self) -> dict[str, object]:
        """JSON form for ``watch --status --json``."""
        return {
            "root": str(self.root),
            "running": self.running,
            "pid": self.pid,
            "stale_pid_removed": self.stale_pid_removed,
        }


def watch_status(root: Path) -> WatchStatus:
    """Report the daemon of ``root`` (running ⇔ its lock is held)."""
    running = _lock_held(root)
    return WatchStatus(root, running, read_pid(root) if running else None)


class DaemonLock:
    """Held by the running daemon: the flock plus the pid file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        """The project root."""
        path = lock_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            pid = read_pid(root)
            who = f" (pid {pid})" if pid else ""
            raise StateError(f"watch is already running for {root}{who}") from None

        atomic_write_text(pid_path(root), f"{os.getpid()}\n")

    def still_owned(self) -> bool:
        """False once someone removed or replaced our pid file (time to exit)."""
        return read_pid(self.root) == os.getpid()

    def release(self) -> None:
        """Remove the pid file (if still ours) and release the lock."""
        if self.still_owned():
            with contextlib.suppress(OSError):
                pid_path(self.root).unlink()
        with contextlib.suppress(OSError):
            os.close(self._fd)


def stop_watch(root: Path, *, timeout: float = 10.0) -> WatchStatus:
    """SIGTERM the running daemon and wait until it exits; clean a stale pid file.

    Returns the status *before* stopping (``running`` says whether there was a
    daemon). Raises StateError when it does not exit within ``timeout``.
    """
    before = watch_status(root)
    if not before.running:
        stale = pid_path(root).exists()
        if stale:
            with contextlib.suppress(OSError):
                pid_path(root).unlink()
        return WatchStatus(root, False, None, stale_pid_removed=stale)
    if before.pid is None:
        raise StateError("watch is running but its pid file is missing")
    with contextlib.suppress(ProcessLookupError):
        os.kill(before.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _lock_held(root):
        if time.monotonic() > deadline:
            raise StateError(
                f"watch (pid {before.pid}) did not stop within {timeout:g} s"
            )
        time.sleep(0.05)
    return before
