"""Temporary files a dead writer left behind, and their removal.

An atomic write (:mod:`agent_doc.store.atomic`) puts its bytes in
``.<name>.<pid>.<12 hex>.tmp`` next to the target and renames it over the
target. A writer killed between the two (``kill -9``, a crash, power loss)
leaves that file behind: next to the person's document or under
``.agent-doc/``. ``recover`` and ``gc`` remove it, but only when its writer is
certainly gone:

- the pid in its name is not alive, or
- a process with that pid is alive but started after the file was last
  written (the pid was reused by an unrelated process).

A temporary file of a live writer is never removed, however old: a writer
stopped with Ctrl-Z still renames it when it continues.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from agent_doc.store.procs import pid_alive
from agent_doc.store.state import StateStore

TEMP_NAME = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)\.[0-9a-f]{12}\.tmp$")
"""The name :func:`~agent_doc.store.atomic.atomic_write_bytes` gives a temp file."""

CLOCK_SLACK_S = 2.0
"""Seconds of doubt between a process's start time and a file's mtime (the boot
time in ``/proc/stat`` is whole seconds)."""


def writer_pid(path: Path) -> int | None:
    """The pid of the writer that named the temporary file ``path``; else ``None``."""
    match = TEMP_NAME.match(path.name)
    return int(match["pid"]) if match else None


def _boot_time() -> float | None:
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch); ``None`` if unknown."""
    boot = _boot_time()
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            stat = handle.read()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        per_second = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return None if boot is None else boot + ticks / per_second


def writer_is_gone(path: Path) -> bool:
    """Whether the process that wrote the temporary file ``path`` has ended.

    ``False`` for a name that is not an agent-doc temporary file, for our own
    pid and whenever it cannot be told (the file is then kept).
    """
    pid = writer_pid(path)
    if pid is None or pid == os.getpid():
        return False
    if not pid_alive(pid):
        return True
    started = process_start_time(pid)
    try:
        written = path.stat().st_mtime
    except OSError:
        return False
    return started is not None and started > written + CLOCK_SLACK_S


def stray_temp_files(folder: Path, *, recursive: bool = False) -> list[Path]:
    """Temporary files of dead writers in ``folder`` (and below, if ``recursive``)."""
    found: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if recursive:
                    found.extend(stray_temp_files(Path(entry.path), recursive=True))
                continue
        except OSError:
            continue
        if entry.name.endswith(".tmp") and writer_is_gone(Path(entry.path)):
            found.append(Path(entry.path))
    return sorted(found)


def remove_temp_files(paths: Iterable[Path]) -> list[Path]:
    """Delete ``paths`` (already gone counts as removed); return those removed."""
    removed: list[Path] = []
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            continue
        removed.append(path)
    return removed


SKIP_DIRS = frozenset({".git", ".agent-doc", "node_modules", ".venv", "venv"})
"""Folders of a project never searched for documents (``.agent-doc`` is searched
on its own, in full)."""


def project_temp_files(root: Path) -> list[Path]:
    """Temporary files of dead writers anywhere in the project ``root``.

    Every folder that may hold documents (the folders of :data:`SKIP_DIRS`
    skipped) and the whole of ``root/.agent-doc``.
    """
    found: list[Path] = []
    for folder, dirs, _files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        found.extend(stray_temp_files(Path(folder)))
    found.extend(stray_temp_files(root / ".agent-doc", recursive=True))
    return sorted(found)


def document_temp_files(document: Path, state: Path) -> list[Path]:
    """Temporary files of dead writers next to ``document`` (its folder and,
    for a symlink, its target's) and anywhere under the ``state`` folder."""
    folders = {document.parent.absolute(), document.resolve().parent}
    found = {p for folder in folders for p in stray_temp_files(folder)}
    found.update(stray_temp_files(state, recursive=True))
    return sorted(found)


def remove_debris(path: Path | None = None, *, dry_run: bool = False) -> list[Path]:
    """Remove temporary files of dead writers.

    With ``path``: those next to that document and under its project's
    ``.agent-doc/``; otherwise those of the current folder's whole project.
    Returns what was (``dry_run``: would be) removed.
    """
    if path is not None:
        store = StateStore.for_document(Path(path))
        found = document_temp_files(Path(path), store.state_dir)
    else:
        found = project_temp_files(StateStore.for_document(Path.cwd()).root)
    return found if dry_run else remove_temp_files(found)
