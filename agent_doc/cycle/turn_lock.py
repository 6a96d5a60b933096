"""One agent turn per document at a time, across processes.

``run``, ``watch`` and the language server's agent turns take the document's
turn lock before they read the diff, and hold it until the answer is written
and committed. Two runs on one document would pay two agents, interleave their
answers and fork the conversation, so the second one is refused at once (or,
asked to wait, waits for the first to end).

The lock is an ``fcntl.flock`` on ``.agent-doc/turns/<doc_hash>.lock``: the
kernel drops it when its process dies, so a crashed or killed turn never blocks
the next one. Beside it, ``<doc_hash>.json`` (written atomically once the lock
is held, removed before it is released) names the holder — pid, command and
start time — for the refusal message. A record left by a dead process is
ignored: only the flock decides whether a turn runs.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from agent_doc.errors import StateError
from agent_doc.errors import TurnRunning
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_hash
from agent_doc.store.state import project_root_for
from agent_doc.store.state import require_document

TURNS_DIR = "turns"
"""Folder under ``.agent-doc/`` holding the turn locks and their records."""
PROBE_GRACE_S = 0.2
"""A refusal waits this long first: a probe (``watch``) may hold the lock briefly."""
WAIT_HINT = "use --wait to queue"
"""The refusal's advice on the command line."""


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """Who runs the turn on a document."""

    pid: int
    """The process holding the turn (0 when its record could not be read)."""
    command: str
    """What runs it: ``run``, ``watch`` or ``server``."""
    started: float
    """Start of the turn (Unix seconds)."""
    host: str = ""
    """The host it runs on, for a room's turn (empty: this host)."""

    def describe(self) -> str:
        """``pid 1234, `run`, since 12:03:11`` (a date too when not today);
        ``pid 1234 on box, …`` for a room's turn held on a host."""
        if self.pid <= 0:
            return "pid unknown"
        stamp = time.localtime(self.started)
        form = "%H:%M:%S" if time.time() - self.started < 20 * 3600 else "%F %T"
        where = f" on {self.host}" if self.host else ""
        since = time.strftime(form, stamp)
        return f"pid {self.pid}{where}, `{self.command}`, since {since}"


class TurnLock:
    """The held turn of one document; :meth:`release` (or ``with``) ends it."""

    def __init__(self, fd: int, record_path: Path) -> None:
        self._fd: int | None = fd
        """The locked file descriptor (``None`` once released)."""
        self.record_path = record_path
        """The holder's record, removed on release."""

    def release(self) -> None:
        """Remove the record and drop the lock (a second call does nothing)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            self.record_path.unlink(missing_ok=True)  # before the lock: never a
        except OSError:  # newer holder's record
            pass
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> TurnLock:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def turn_paths(path: Path) -> tuple[Path, Path]:
    """``(lock, record)`` of the document ``path``."""
    folder = project_root_for(path) / STATE_DIR / TURNS_DIR
    key = doc_hash(path)
    return folder / f"{key}.lock", folder / f"{key}.json"


def acquire_turn(
    path: Path,
    command: str,
    *,
    wait_s: float = 0.0,
    on_wait: Callable[[TurnRecord], None] | None = None,
    hint: str | None = WAIT_HINT,
) -> TurnLock:
    """Take the turn of ``path`` for ``command`` and return it.

    When another process runs a turn, raise :class:`TurnRunning` naming it at
    once (``wait_s`` 0), or call ``on_wait`` once with its record and wait up
    to ``wait_s`` seconds for it to end. Creates nothing unless ``path`` is a
    document.
    """
    path = Path(path)
    require_document(path)
    lock_path, record_path = turn_paths(path)
    fd = _open_lock(lock_path)
    try:
        if not _try_lock(fd, PROBE_GRACE_S):
            holder = read_record(record_path)
            if wait_s <= 0:
                raise TurnRunning(turn_refusal(path, holder, hint))
            if on_wait is not None:
                on_wait(holder)
            if not _try_lock(fd, wait_s):
                raise TurnRunning(
                    f"{path}: the running turn ({holder.describe()}) did not "
                    f"end within {wait_s:g} s"
                )
        record = {"pid": os.getpid(), "command": command, "started": time.time()}
        try:
            atomic_write_text(record_path, json.dumps(record), durable=False)
        except StateError:
            fcntl.flock(fd, fcntl.LOCK_UN)
            raise
    except BaseException:
        os.close(fd)
        raise
    return TurnLock(fd, record_path)


def running_turn(path: Path) -> TurnRecord | None:
    """The turn running on ``path`` in another process, or ``None``."""
    lock_path, record_path = turn_paths(Path(path))
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return read_record(record_path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def read_record(record_path: Path) -> TurnRecord:
    """The holder's record (``pid`` 0 when missing or unreadable)."""
    deadline = time.monotonic() + PROBE_GRACE_S
    while True:  # the holder writes its record just after taking the lock
        try:
            data = json.loads(record_path.read_text(encoding="utf-8"))
            return TurnRecord(
                int(data["pid"]), str(data["command"]), float(data["started"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            if time.monotonic() >= deadline:
                return TurnRecord(0, "", 0.0)
            time.sleep(0.01)


def turn_refusal(path: Path | str, holder: TurnRecord, hint: str | None) -> str:
    """The refusal of a second turn on ``path`` while ``holder`` runs one."""
    advice = f"; {hint}" if hint else ""
    return f"{path} already has a turn running ({holder.describe()}){advice}"


def _open_lock(lock_path: Path) -> int:
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StateError(f"cannot open {lock_path}: {exc.strerror or exc}") from exc


def _try_lock(fd: int, wait_s: float) -> bool:
    """Take the flock within ``wait_s`` seconds; ``False`` when still held."""
    deadline = time.monotonic() + max(wait_s, 0.0)
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, 0.25)
