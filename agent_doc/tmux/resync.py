"""``resync [--fix]``: check sessions.json against live tmux panes (spec §7.13).

Each binding is judged against the tmux server it was made on
(:mod:`agent_doc.tmux.servers`); bindings of a server that does not answer are
left alone with one warning. Always: report the bindings whose pane is gone or
dead (``fix`` removes them — the only path that prunes the registry), purge
idle stash windows (every pane an idle shell, no activity for
``idle_stash_s``; agent processes are never killed), report orphan stash
windows. Issues (live panes): wrong-process, wrong-session, wrong-window.
``fix``: kill + unbind wrong-session panes, unbind wrong-process panes (the
process is left alone), stash wrong-window panes (still bound).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from agent_doc.errors import AgentDocError
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import SHELLS
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.adapter import WindowInfo
from agent_doc.tmux.adapter import is_stash_window_name
from agent_doc.tmux.agent_profile import agent_profile
from agent_doc.tmux.agent_profile import pane_kind
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.registry import SessionEntry
from agent_doc.tmux.servers import Servers
from agent_doc.tmux.stash import stash_pane


@dataclass(frozen=True, slots=True)
class ResyncIssue:
    """One problem: ``kind`` ∈ wrong-process / wrong-session / wrong-window."""

    kind: str
    session_id: str
    file: str
    pane: str
    detail: str
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class StaleBinding:
    """A binding whose pane is gone or dead on its own server."""

    session_id: str
    file: str
    pane: str
    server: str
    reason: str


@dataclass(frozen=True, slots=True)
class ResyncReport:
    """Everything ``resync`` found and did.

    ``pruned`` lists the stale bindings: removed when ``fixed``, otherwise
    what ``--fix`` would remove. ``warnings`` name unreachable servers.
    """

    pruned: tuple[StaleBinding, ...]
    purged_windows: tuple[str, ...]
    orphan_windows: tuple[str, ...]
    issues: tuple[ResyncIssue, ...] = field(default_factory=tuple)
    fixed: bool = False
    warnings: tuple[str, ...] = ()


def purge_idle_stashes(
    tmux: Tmux,
    panes: dict[str, PaneInfo],
    windows: list[WindowInfo],
    bound: set[str],
    idle_stash_s: float,
) -> tuple[list[str], list[str]]:
    """Kill stash windows of idle shells; return (purged, orphan) window ids."""
    purged: list[str] = []
    orphans: list[str] = []
    now = time.time()
    for window in windows:
        if not is_stash_window_name(window.name):
            continue
        inside = [p for p in panes.values() if p.window_id == window.window_id]
        idle = all(p.command in SHELLS or p.dead for p in inside)
        unbound = not any(p.pane_id in bound for p in inside)
        if inside and idle and unbound and now - window.activity > idle_stash_s:
            tmux.kill_window(window.window_id)
            purged.append(window.window_id)
            continue
        if inside and unbound:
            orphans.append(window.window_id)
    return purged, orphans


def _doc_session(root: Path, file: str) -> str | None:
    path = Path(file) if Path(file).is_absolute() else root / file
    try:
        return load_doc(path, create=False).tmux_session
    except AgentDocError:
        return None


def _stale(
    reg: registry.Registry, servers: Servers
) -> tuple[list[StaleBinding], list[str]]:
    """Stale bindings on servers that answer, and warnings for those that do not."""
    stale: list[StaleBinding] = []
    silent: list[SessionEntry] = []
    for socket in sorted({servers.socket_of(e) for e in reg.entries.values()}):
        panes = servers.panes_on(socket)
        here = [e for e in reg.entries.values() if servers.socket_of(e) == socket]
        if panes is None:
            silent.extend(here)
            continue
        for key in reg.prunable(panes, socket):
            entry = reg.entries[key]
            info = panes.get(entry.pane)
            if info is None:
                reason = "pane gone"
            elif info.dead:
                code = info.dead_status
                status = f" (status {code})" if code is not None else ""
                reason = f"agent exited{status}"
            else:
                reason = "a newer binding holds the pane"
            stale.append(StaleBinding(key, entry.file, entry.pane, socket, reason))
    return stale, servers.warnings(silent)


def resync(
    root: Path,
    fix: bool = False,
    *,
    idle_stash_s: float = 30.0,
    tmux: Tmux | None = None,
) -> ResyncReport:
    """Validate the registry of the project at ``root``; repair with ``fix``."""
    tmux = tmux or Tmux.from_env()
    profile = agent_profile(root)
    issues: list[ResyncIssue] = []
    servers = Servers(tmux)
    with registry.locked_if_kept(root) as reg:  # nothing to check: create nothing
        current = servers.panes_on(servers.current_socket)
        stale, warnings = _stale(reg, servers)
        if fix:
            for item in stale:
                reg.unbind(item.session_id)
            if current is not None:
                reg.adopt(servers.current_socket)
        gone = {item.session_id for item in stale}
        live = {
            k: e for k, e in reg.entries.items()
            if k not in gone and servers.is_current(e) and current is not None
        }  # fmt: skip
        panes = current or {}
        bound = {e.pane for k, e in reg.entries.items() if servers.is_current(e)}
        purged, orphans = (
            purge_idle_stashes(tmux, panes, tmux.windows(), bound, idle_stash_s)
            if current is not None else ([], [])
        )  # fmt: skip
        majority: dict[str, Counter[str]] = {}
        for entry in live.values():
            info = panes[entry.pane]
            if not is_stash_window_name(info.window_name):
                majority.setdefault(info.session, Counter())[info.window_id] += 1
        for key, entry in sorted(live.items()):
            info = panes[entry.pane]

            def issue(
                kind: str, detail: str, key: str = key, entry: SessionEntry = entry
            ) -> None:
                issues.append(
                    ResyncIssue(kind, key, entry.file, entry.pane, detail, fix)
                )

            if pane_kind(info, profile) == "other":
                issue("wrong-process", f"runs {info.command}")
                if fix:
                    reg.unbind(key)
                continue
            wanted = _doc_session(root, entry.file)
            if wanted and wanted != info.session:
                issue("wrong-session", f"in {info.session}, document wants {wanted}")
                if fix:
                    tmux.kill_pane(entry.pane)
                    reg.unbind(key)
                continue
            counts = majority.get(info.session)
            if is_stash_window_name(info.window_name) or not counts:
                continue
            top = counts.most_common(1)[0][0]
            if info.window_id != top:
                issue("wrong-window", f"in {info.window_id}, majority {top}")
                if fix:
                    stash_pane(tmux, entry.pane, info.session)
    return ResyncReport(
        tuple(stale), tuple(purged), tuple(orphans), tuple(issues), fix,
        tuple(warnings),
    )  # fmt: skip
