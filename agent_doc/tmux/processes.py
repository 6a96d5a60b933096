"""Processes behind a tmux pane: the foreground command and the caller's ancestry.

tmux reports only ``pane_pid`` and the foreground program's base name; agents
that are scripts (``sh agent.sh``, ``python3 my_agent.py``) need the full argv.
Linux reads ``/proc``; elsewhere one ``ps`` call per question.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_PROC = Path("/proc")


def _ps(pid: int, field: str) -> str:
    try:
        proc = subprocess.run(
            ["ps", "-o", f"{field}=", "-p", str(pid)],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip()


def _stat_fields(pid: int) -> list[str]:
    """``/proc/PID/stat`` fields after the command name (index 0 = state)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text("utf-8", "replace")
    except OSError:
        return []
    return text[text.rfind(")") + 2 :].split()


def process_argv(pid: int) -> list[str]:
    """The command line of ``pid`` (empty when it is gone or unreadable)."""
    if pid <= 0:
        return []
    if _PROC.is_dir():
        try:
            raw = (_PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            return []
        return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    return _ps(pid, "args").split()


def parent_pid(pid: int) -> int:
    """The parent of ``pid`` (0 when unknown)."""
    if _PROC.is_dir():
        fields = _stat_fields(pid)
        return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
    value = _ps(pid, "ppid")
    return int(value) if value.isdigit() else 0


def foreground_pid(pane_pid: int) -> int:
    """The leader of the foreground process group on the pane's terminal."""
    if _PROC.is_dir():
        fields = _stat_fields(pane_pid)
        value = fields[5] if len(fields) > 5 else ""
    else:
        value = _ps(pane_pid, "tpgid")
    pid = int(value) if value.lstrip("-").isdigit() else 0
    return pid if pid > 0 else pane_pid


def foreground_argv(pane_pid: int) -> list[str]:
    """The command line of what runs in the foreground of a pane."""
    return process_argv(foreground_pid(pane_pid)) or process_argv(pane_pid)


def ancestors(stop_at: int, limit: int = 64) -> list[list[str]]:
    """Command lines of this process's ancestors, parent first, up to ``stop_at``."""
    found: list[list[str]] = []
    pid = os.getppid()
    while pid > 1 and len(found) < limit:
        found.append(process_argv(pid))
        if pid == stop_at:
            break
        pid = parent_pid(pid)
    return found
