"""``.agent-doc/.gitignore``: runtime state out of ``git add -A``, settings in.

Everything agent-doc writes under ``.agent-doc/`` while it works is per machine
and per moment: snapshots, CRDT state, baselines, pending answers, locks,
logs, busy status and typing times, hook events and their socket, language
server records, the tmux registry and layout, claims, link caches. None of it
belongs in a commit (a large document's CRDT state alone is megabytes). The
project settings a team shares (``config.toml``, ``components.toml``) stay
trackable. The file ignores everything but those, so state added by a later
version is ignored too.

agent-doc writes the file when it is missing (``init``, the per-turn commit,
``gc``) and never rewrites one that exists: a person may have edited it.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.store.atomic import atomic_write_bytes

SHARED_SETTINGS = ("config.toml", "components.toml")
"""The files under ``.agent-doc/`` a team shares through git."""

GITIGNORE_TEXT = (
    "# Written by agent-doc when missing; yours to edit (it is never rewritten).\n"
    "# Runtime state stays out of git: snapshots, CRDT state, baselines, pending\n"
    "# answers, locks, logs, status, typing, hook events, server records, the\n"
    "# tmux registry. Project settings a team shares stay trackable.\n"
    "*\n"
    "!/.gitignore\n" + "".join(f"!/{name}\n" for name in SHARED_SETTINGS)
)
"""The content of a new ``.agent-doc/.gitignore``."""


def ensure_state_ignored(state_dir: Path) -> bool:
    """Write ``state_dir/.gitignore`` if it is missing; True when written.

    Nothing happens without ``state_dir`` (no folder is created here) or when
    the file exists, whatever it says.
    """
    target = state_dir / ".gitignore"
    if target.exists() or target.is_symlink() or not state_dir.is_dir():
        return False
    atomic_write_bytes(target, GITIGNORE_TEXT.encode("utf-8"))
    return True
