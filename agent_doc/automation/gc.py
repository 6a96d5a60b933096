"""``agent-doc gc``: remove orphaned and expired ``.agent-doc/`` state (spec §11).

What goes (each reported with a reason):

- per-document files (``snapshots/``, ``baselines/``, ``pending/``, ``crdt/``,
  ``typing/``, ``status/``, ``landing/``, and ``locks/<hash>.lock`` unless a
  process holds it) whose document no longer exists. Documents are
  mapped to their hash by scanning the project's ``.md`` files (``.git``,
  ``.agent-doc``, ``node_modules`` and virtualenvs skipped) plus the files of
  ``sessions.json``. A pending response whose document exists is never touched;
- typing indicators and status files older than one hour, even for living
  documents (they only matter for seconds);
- ``servers/*.json`` registrations whose pid is dead;
- hook events older than their TTL (:mod:`agent_doc.store.events`);
- ``links_cache/`` entries not refreshed for 30 days;
- temporary files of dead writers (``.<name>.<pid>.<random>.tmp`` next to a
  document or under ``.agent-doc/``, :mod:`agent_doc.store.debris`).

Lock files of existing documents always stay; so does any lock a process
holds (checked by taking it without waiting).

``dry_run`` lists without deleting.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import AgentDocError
from agent_doc.store.debris import project_temp_files
from agent_doc.store.debris import writer_pid
from agent_doc.store.events import gc_events
from agent_doc.store.gitignore import ensure_state_ignored
from agent_doc.store.locks import remove_free_lock
from agent_doc.store.procs import pid_alive
from agent_doc.store.state import doc_hash
from agent_doc.tmux.registry import load

PER_DOCUMENT = (
    "snapshots",
    "baselines",
    "pending",
    "crdt",
    "typing",
    "status",
    "landing",
)
TRANSIENT = ("typing", "status")
TRANSIENT_MAX_AGE_S = 3600
LINKS_MAX_AGE_S = 30 * 86400
SKIP_DIRS = frozenset({".git", ".agent-doc", "node_modules", ".venv", "venv"})


@dataclass(frozen=True, slots=True)
class GcItem:
    """One removed (or, in a dry run, removable) file."""

    path: Path
    reason: str

    def to_json(self) -> dict[str, str]:
        """JSON form for ``--json``."""
        return {"path": str(self.path), "reason": self.reason}


def document_hashes(root: Path) -> set[str]:
    """Hashes of every ``.md`` document of the project and of sessions.json."""
    hashes: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        hashes.update(
            doc_hash(Path(folder) / f)
            for f in files
            if f.endswith((".md", ".markdown"))
        )
    with contextlib.suppress(AgentDocError):
        for entry in load(root).entries.values():
            if entry.file and (root / entry.file).is_file():
                hashes.add(doc_hash(root / entry.file))
    return hashes


def _hash_of(path: Path) -> str:
    return path.name.split(".", 1)[0]


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return 0.0


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return []


def _dead_server(path: Path) -> bool:
    try:
        pid = json.loads(path.read_text(encoding="utf-8")).get("pid")
    except (OSError, ValueError, AttributeError):
        return True
    return not (isinstance(pid, int) and pid_alive(pid))


def find_garbage(root: Path, *, now: float | None = None) -> list[GcItem]:
    """Everything :func:`collect_garbage` would remove."""
    state = root / ".agent-doc"
    current = time.time() if now is None else now
    living = document_hashes(root)
    items: list[GcItem] = []
    for kind in PER_DOCUMENT:
        for path in _files(state / kind):
            if path.name.startswith(".") or path.name.endswith(".lock"):
                continue
            if _hash_of(path) not in living:
                items.append(GcItem(path, f"{kind}: document no longer exists"))
            elif kind in TRANSIENT and _age(path, current) > TRANSIENT_MAX_AGE_S:
                items.append(GcItem(path, f"{kind}: older than one hour"))
    for path in _files(state / "locks"):
        orphan = path.suffix == ".lock" and _hash_of(path) not in living
        if orphan and remove_free_lock(path, dry_run=True):
            items.append(GcItem(path, "locks: document no longer exists"))
    for path in _files(state / "servers"):
        if path.suffix == ".json" and _dead_server(path):
            items.append(GcItem(path, "servers: process no longer running"))
    for path in gc_events(root, now_ms=int(current * 1000), dry_run=True):
        items.append(GcItem(path, "hooks: event expired"))
    for path in _files(state / "links_cache"):
        if _age(path, current) > LINKS_MAX_AGE_S:
            items.append(GcItem(path, "links_cache: not refreshed for 30 days"))
    for path in project_temp_files(root):
        reason = f"temporary file: its writer (pid {writer_pid(path)}) is gone"
        items.append(GcItem(path, reason))
    return items


def collect_garbage(
    root: Path, *, dry_run: bool = False, now: float | None = None
) -> list[GcItem]:
    """Remove orphaned/expired state under ``root``; return what went."""
    items = find_garbage(root, now=now)
    if not dry_run:
        ensure_state_ignored(root / ".agent-doc")  # a project from before it existed
        for item in items:
            if item.path.parent.name == "locks" and item.path.suffix == ".lock":
                remove_free_lock(item.path)  # never one a process holds now
                continue
            with contextlib.suppress(FileNotFoundError):
                item.path.unlink()
    return items
