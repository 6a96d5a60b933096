"""``.agent-doc/sessions.json``: which tmux pane serves which document (spec §8.1).

Shared by concurrent processes: every read-modify-write holds
``sessions.json.lock`` and replaces the file atomically. The Binding invariant
(§8.5, "one document per pane") is kept by :meth:`Registry.bind`. A corrupt
file is backed up to ``sessions.json.corrupt-<ts>`` and reported, never dropped
silently.
"""

from __future__ import annotations

import contextlib
import json
import stat
import time
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import StateError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import file_lock

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from agent_doc.tmux.adapter import PaneInfo


class SessionEntry(Record):
    """One Binding: a document's session UUID → its tmux pane."""

    __slots__ = ("pane", "pid", "cwd", "started", "file", "window", "socket")

    def __init__(
        self,
        pane: str,
        pid: int = 0,
        cwd: str = "",
        started: str = "",
        file: str = "",
        window: str = "",
        socket: str = "",
    ) -> None:
        self.pane = pane
        self.pid = pid
        self.cwd = cwd
        self.started = started
        self.file = file
        self.window = window
        self.socket = socket
        """The tmux server the pane lives on (its socket path); empty in entries
        written before it was recorded, which count as the current server's."""

    def same_server(self, socket: str) -> bool:
        """Whether this binding lives on the server at ``socket``."""
        return not self.socket or not socket or self.socket == socket


def utc_now() -> str:
    """The ``started`` timestamp format: ``2026-02-25T21:24:46Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def registry_path(root: Path) -> Path:
    """``<root>/.agent-doc/sessions.json``."""
    return root / STATE_DIR / "sessions.json"


class Registry:
    """The in-memory registry of one project; mutate under :func:`locked`."""

    def __init__(self, root: Path, entries: dict[str, SessionEntry]) -> None:
        self.root = root
        self.entries = entries
        self.changed = False

    def owner_of(self, pane: str, socket: str = "") -> str | None:
        """The session key bound to ``pane`` (of the server at ``socket``), if any."""
        for key, entry in self.entries.items():
            if entry.pane == pane and entry.same_server(socket):
                return key
        return None

    def bind(self, key: str, entry: SessionEntry) -> None:
        """Bind ``key`` to ``entry`` (last call wins); unbind others on that pane.

        Pane ids are per server: a binding to the same id on another server
        is kept.
        """
        for other, e in list(self.entries.items()):
            if other != key and e.pane == entry.pane and e.same_server(entry.socket):
                del self.entries[other]
        self.entries[key] = entry
        self.changed = True

    def adopt(self, socket: str) -> None:
        """Record ``socket`` in entries written before servers were recorded."""
        for key, entry in self.entries.items():
            if not entry.socket:
                self.entries[key] = entry._replace(socket=socket)
                self.changed = True

    def unbind(self, key: str) -> SessionEntry | None:
        """Remove ``key``; return what it was bound to."""
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.changed = True
        return entry

    def key_for_file(self, file: Path) -> str | None:
        """The key whose ``file`` is ``file`` (for documents lacking frontmatter)."""
        rel = relative_file(self.root, file)
        for key, entry in self.entries.items():
            if entry.file == rel:
                return key
        return None

    def prunable(self, panes: dict[str, PaneInfo], socket: str = "") -> list[str]:
        """Entries of the server at ``socket`` whose pane is gone or dead, and
        older entries sharing a pane with a newer one (newest wins).

        ``panes`` must come from a server that answered: an unreachable server
        proves nothing (see :mod:`agent_doc.tmux.servers`).
        """
        mine = {k: e for k, e in self.entries.items() if e.same_server(socket)}
        removed = [
            k for k, e in mine.items() if e.pane not in panes or panes[e.pane].dead
        ]
        newest: dict[str, str] = {}
        for key, entry in sorted(mine.items(), key=lambda kv: kv[1].started):
            if key not in removed:
                if entry.pane in newest:
                    removed.append(newest[entry.pane])
                newest[entry.pane] = key
        return removed

    def prune(self, panes: dict[str, PaneInfo], socket: str = "") -> list[str]:
        """Remove :meth:`prunable` entries; only ``resync --fix`` calls this."""
        removed = self.prunable(panes, socket)
        for key in removed:
            self.entries.pop(key, None)
        if removed:
            self.changed = True
        return removed

    def to_json(self) -> str:
        """The file contents (stable key order, trailing newline)."""
        data = {k: e._asdict() for k, e in sorted(self.entries.items())}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def relative_file(root: Path, file: Path) -> str:
    """``file`` relative to the project root when inside it, else absolute."""
    path = Path(file).resolve()
    try:
        return str(path.relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _parse(text: str) -> dict[str, SessionEntry]:
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("top level is not an object")
    entries: dict[str, SessionEntry] = {}
    for key, raw in data.items():
        if not isinstance(raw, dict) or not isinstance(raw.get("pane"), str):
            raise ValueError(f"entry {key!r} has no pane")
        known = {f: raw[f] for f in SessionEntry.__slots__ if f in raw}
        entries[str(key)] = SessionEntry(**_coerce(known))
    return entries


def _coerce(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: (str(v) if v is not None else "") for k, v in values.items()
    }
    out["pid"] = int(values.get("pid") or 0)
    return out


def _load_unlocked(root: Path) -> Registry:
    path = registry_path(root)
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read
            raise StateError(f"cannot read {path}: not a regular file")
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return Registry(root, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise StateError(f"cannot read {path}: {exc}") from exc
    try:
        return Registry(root, _parse(text))
    except (ValueError, TypeError) as exc:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"sessions.json.corrupt-{stamp}")
        with contextlib.suppress(OSError):
            path.replace(backup)
        raise StateError(
            f"sessions.json is corrupt: {exc}; backed up to {backup.name}"
        ) from exc


def load(root: Path) -> Registry:
    """Read the registry (no lock held afterwards); corrupt → backup + error.

    A project without ``sessions.json`` has an empty registry; reading it
    creates nothing (no lock file, no ``.agent-doc/``).
    """
    if not registry_path(root).exists():
        return Registry(root, {})
    with file_lock(registry_path(root).with_name("sessions.json.lock")):
        return _load_unlocked(root)


@contextlib.contextmanager
def locked_if_kept(root: Path) -> Iterator[Registry]:
    """:func:`locked` when the project has a ``sessions.json``; otherwise an
    empty registry and nothing created (no lock file, no ``.agent-doc/``).

    For checks such as ``resync`` that only prune or unbind existing entries:
    an empty registry has none, so there is nothing to save.
    """
    if registry_path(root).exists():
        with locked(root) as registry:
            yield registry
    else:
        yield Registry(root, {})


@contextlib.contextmanager
def locked(root: Path) -> Iterator[Registry]:
    """Hold the registry lock; the registry is saved on exit if it changed."""
    with file_lock(registry_path(root).with_name("sessions.json.lock")):
        registry = _load_unlocked(root)
        yield registry
        if registry.changed:
            atomic_write_text(registry_path(root), registry.to_json())
