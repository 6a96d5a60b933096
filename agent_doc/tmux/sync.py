"""``sync``: mirror the editor's columns in one tmux window (spec §7.20, §7.31–7.36).

Resolve files (no UUID → unmanaged, skipped; empty columns dropped; column memory
in ``last_layout.json``; a document whose agent lives on another tmux server is
left there) → ``repair_layout`` → find each document's live pane or
provision one (non-blocking) → reconcile attach-first: SNAPSHOT, FAST PATH,
ATTACH/REORDER (``join-pane``: ``-h -f`` between columns, ``-v`` within one),
SELECT focus, DETACH (stash, never kill), VERIFY.
"""

from __future__ import annotations

import calendar
import itertools
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import AgentDocError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.bindings import AGENT_WINDOW
from agent_doc.tmux.bindings import DocSession
from agent_doc.tmux.bindings import live_pane
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.bindings import resolve_target_session
from agent_doc.tmux.route import clear_starting_lock
from agent_doc.tmux.route import failed_start
from agent_doc.tmux.route import mark_failed_start
from agent_doc.tmux.route import provision_pane
from agent_doc.tmux.servers import UNREACHABLE
from agent_doc.tmux.servers import Servers
from agent_doc.tmux.stash import move_to_front
from agent_doc.tmux.stash import repair_layout
from agent_doc.tmux.stash import stash_pane


@dataclass(frozen=True, slots=True)
class SyncResult:
    """Pane ids per column (left→right, top→bottom) after the sync."""

    window: str | None
    columns: tuple[tuple[str, ...], ...]
    files: dict[str, str]
    ok: bool
    changed: bool
    warnings: tuple[str, ...] = ()


QUICK_EXIT_S = 60.0
"""An agent that dies this soon after its start is not restarted by ``sync``."""


def resolve_document(file: str, warnings: list[str] | None = None) -> DocSession | None:
    """``file`` as a session document; ``None`` (noted in ``warnings``) when it
    cannot be read or has no session UUID."""
    try:
        doc = load_doc(file, create=False)
    except AgentDocError as exc:
        if warnings is not None:
            warnings.append(f"{file}: {str(exc).removeprefix(file + ': ')}; skipped")
        return None
    if not doc.key and warnings is not None:
        warnings.append(
            f"{doc.rel}: not a session document (no agent_doc_session; "
            f"agent-doc claim {doc.rel} makes it one); skipped"
        )
    return doc if doc.key else None


def _memory(root: Path) -> Path:
    return root / STATE_DIR / "last_layout.json"


def resolve_columns(
    columns: list[list[str]], warnings: list[str] | None = None
) -> list[list[DocSession]]:
    """Managed documents per column, with column memory for emptied columns.

    Files that are not session documents are skipped (noted in ``warnings``).
    """
    cols = [[f for f in col if f.strip()] for col in columns]
    cols = [c for c in cols if c]
    resolved = [
        [d for f in col if (d := resolve_document(f, warnings)) is not None]
        for col in cols
    ]
    roots = [d.root for col in resolved for d in col]
    if not roots:
        return []
    mem_path = _memory(roots[0])
    try:
        memory = json.loads(mem_path.read_text("utf-8"))
    except (OSError, ValueError):
        memory = {}
    out: list[list[DocSession]] = []
    for index, col in enumerate(resolved):
        if not col and isinstance(memory, dict) and str(index) in memory:
            remembered = resolve_document(str(memory[str(index)]))
            col = [remembered] if remembered else []
        if col:
            out.append(col)
            memory[str(index)] = str(col[0].path)
    atomic_write_text(mem_path, json.dumps(memory, indent=2) + "\n")
    return out


def current_columns(panes: dict[str, PaneInfo], window: str) -> list[list[str]]:
    """The window's panes grouped into columns by ``pane_left``, sorted by top."""
    inside = [p for p in panes.values() if p.window_id == window]
    lefts = sorted({p.left for p in inside})
    return [
        [p.pane_id for p in sorted(inside, key=lambda p: p.top) if p.left == left]
        for left in lefts
    ]


def _place_anchor(tmux: Tmux, anchor: str, session: str, name: str) -> str | None:
    """Put ``anchor`` into window ``name`` of ``session``; return the window id.

    ``None`` when the pane died or vanished meanwhile.
    """
    panes = tmux.panes()
    info = panes.get(anchor)
    if info is None or info.dead:
        return None
    if info.window_name == name and info.session == session:
        return info.window_id
    host = next(
        (p for p in panes.values() if p.session == session and p.window_name == name),
        None,
    )
    if host is not None and tmux.join(anchor, host.pane_id, horizontal=True, full=True):
        return host.window_id
    return tmux.break_out(anchor, session, name)


def _select(tmux: Tmux, pane: str) -> None:
    """Select ``pane`` and its window; a pane that vanished meanwhile is skipped."""
    tmux.try_run("select-window", "-t", pane, ";", "select-pane", "-t", pane)


def _reconcile(
    tmux: Tmux,
    want: list[list[str]],
    focus: str,
    session: str,
    name: str,
    keep: frozenset[str] = frozenset(),
) -> str | None:
    """Make window ``name`` hold exactly ``want`` (attach-first); return its id.

    ``None`` when the first pane died or vanished meanwhile.
    """
    window = _place_anchor(tmux, want[0][0], session, name)
    if window is None:
        return None
    if current_columns(tmux.panes(), window) == want:
        _select(tmux, focus)
        return window
    flat = {p for col in want for p in col}
    for col_index, col in enumerate(want[1:], start=1):
        prev = want[col_index - 1][0]
        if not tmux.join(col[0], prev, horizontal=True, full=True):
            tmux.join(col[0], prev, horizontal=True)
    for col in want:
        for above, pane in itertools.pairwise(col):
            tmux.join(pane, above, horizontal=False)
    _select(tmux, focus)
    for info in tmux.panes().values():
        if info.window_id == window and info.pane_id not in flat | keep:
            stash_pane(tmux, info.pane_id, session)
    tmux.try_run("select-layout", "-t", window, "-E")
    return window


def sync(
    columns: list[list[str]],
    focus: str | None = None,
    window: str | None = None,
    tmux: Tmux | None = None,
    client_pane: str | None = None,
) -> SyncResult:
    """Arrange the documents' panes as ``columns``; focus ``focus``'s pane.

    Only session documents count (others are skipped with a warning). A
    document whose agent exited right after an automatic start is not started
    again (warning) until ``route`` or ``claim``. The caller's pane
    (``client_pane``, else ``$TMUX_PANE``) is never stashed and its window never
    pushed from index 0.
    """
    tmux = tmux or Tmux.from_env()
    warnings: list[str] = []
    docs = resolve_columns(columns, warnings)
    if not docs:
        return SyncResult(None, (), {}, not warnings, False, tuple(warnings))
    root = docs[0][0].root
    caller = client_pane or os.environ.get("TMUX_PANE") or None
    context = None
    if window:
        code, out, _ = tmux.try_run("display-message", "-p", "-t", window, "#S")
        context = out[0] if code == 0 and out else None
    window_name = window if window and not window.startswith("@") else AGENT_WINDOW
    servers = Servers(tmux)
    socket = servers.current_socket
    with registry.locked(root) as reg:
        probed = servers.panes_on(socket)
        if probed is not None:
            reg.adopt(socket)
        panes = probed or {}
        flat = [d for col in docs for d in col]
        _note_quick_exits(reg, flat, panes, socket)
        docs = _skip_bound_elsewhere(servers, reg, docs, warnings)
        if context is None:
            context = next(
                (panes[p].session for col in docs for d in col
                 if (p := live_pane(reg, d.key, panes, socket))),
                None,
            )  # fmt: skip
        session = resolve_target_session(tmux, root, context, caller_pane=caller)
        keep_window = panes[caller].window_id if caller in panes else None
        rescue = [
            p for col in docs for d in col
            if (p := live_pane(reg, d.key, panes, socket))
        ]  # fmt: skip
        repair_layout(tmux, session, window_name, rescue, keep_window)
        want, files = _panes_for(tmux, reg, docs, session, window_name, warnings)
    if not want:
        return SyncResult(None, (), files, False, False, tuple(warnings))
    focus_pane = files.get(str(Path(focus).absolute())) if focus else None
    before = tmux.panes()
    keep = frozenset({caller} if caller else ())
    target = _reconcile(
        tmux, want, focus_pane or want[0][0], session, window_name, keep
    )
    if target is None:
        warnings.append(f"pane {want[0][0]} exited during the sync; not arranged")
        return SyncResult(None, (), {}, False, False, tuple(warnings))
    move_to_front(tmux, session, window_name, keep_window)
    got = current_columns(tmux.panes(), target)
    changed = current_columns(before, target) != got
    return SyncResult(
        target, tuple(map(tuple, got)), files, got == want, changed, tuple(warnings)
    )


def _panes_for(
    tmux: Tmux,
    reg: registry.Registry,
    docs: list[list[DocSession]],
    session: str,
    window_name: str,
    warnings: list[str],
) -> tuple[list[list[str]], dict[str, str]]:
    """Each document's live pane (provisioned when missing), per column."""
    panes = tmux.panes()
    want: list[list[str]] = []
    files: dict[str, str] = {}
    for index, col in enumerate(docs):
        want.append([])
        for doc in col:
            pane = live_pane(reg, doc.key, panes, tmux.socket_path)
            if pane is None:  # it may have died since the sync began
                _note_quick_exits(reg, [doc], panes, tmux.socket_path)
            if pane is None and (failed := failed_start(doc)) is not None:
                warnings.append(
                    f"{doc.rel}: {failed}; not restarted automatically "
                    f"(agent-doc route {doc.rel} starts it again)"
                )
                continue
            if pane is None:
                pane = provision_pane(
                    tmux, reg, doc, session=session,
                    split_target=_split_target(tmux, session, window_name, index),
                    before=index == 0,
                )  # fmt: skip
                panes = tmux.panes()
            if pane is not None and pane not in files.values():
                want[-1].append(pane)
                files[str(doc.path)] = pane
    panes = tmux.panes()
    for doc, pane in [(d, files.get(str(d.path))) for col in docs for d in col]:
        info = panes.get(pane or "")
        if pane is not None and (info is None or info.dead):
            code = info.dead_status if info is not None else None
            detail = f"its agent in pane {pane} exited at once" + (
                f" (status {code})" if code is not None else ""
            )
            mark_failed_start(doc, detail)
            warnings.append(f"{doc.rel}: {detail}")
    live = {p for p, info in panes.items() if not info.dead}
    alive = [[p for p in col if p in live] for col in want]
    return [c for c in alive if c], {f: p for f, p in files.items() if p in live}


def _skip_bound_elsewhere(
    servers: Servers,
    reg: registry.Registry,
    docs: list[list[DocSession]],
    warnings: list[str],
) -> list[list[DocSession]]:
    """``docs`` without those bound to a live pane on another tmux server, or
    to a server that does not answer (one warning per such server): their
    binding is left alone and no second agent is started for them."""
    kept: list[list[DocSession]] = []
    elsewhere = []
    for col in docs:
        kept.append([])
        for doc in col:
            entry = reg.entries.get(doc.key or "")
            found = None if entry is None else servers.pane_of(entry)
            if entry is None or servers.is_current(entry) or found is None:
                kept[-1].append(doc)
            elif found == UNREACHABLE:
                elsewhere.append(entry)
            elif isinstance(found, PaneInfo) and found.dead:
                kept[-1].append(doc)
            else:
                warnings.append(
                    f"{doc.rel}: its agent runs in pane {entry.pane} on tmux "
                    f"server {entry.socket}, not this one; left there"
                )
    warnings.extend(servers.warnings(elsewhere))
    return [col for col in kept if col]


def _note_quick_exits(
    reg: registry.Registry,
    docs: list[DocSession],
    panes: dict[str, PaneInfo],
    socket: str,
) -> None:
    """Mark documents whose agent failed within :data:`QUICK_EXIT_S` of its start.

    Failed: it died with a non-zero status that soon after it was started
    (tmux's ``pane_dead_time``), or its pane vanished that soon (an agent can
    exit before ``remain-on-exit`` is set). An agent that ended with status 0
    (``/exit``) or was closed later is no failure: §7.20 starts a new one. So
    is a dead pane without a status: tmux 3.3 marks a pane dead when its
    terminal reaches EOF and, when that comes before it reaps the process,
    never records the status — how the agent ended is not known (an agent
    that fails at start fails again, and is caught with its status then).
    """
    now = time.time()
    for doc in docs:
        entry = reg.entries.get(doc.key or "")
        if entry is None or not entry.same_server(socket):
            continue
        info = panes.get(entry.pane)
        if info is not None and not info.dead:
            continue
        if info is not None and info.dead_status in (0, None):
            clear_starting_lock(doc)  # its start is over: a new one may begin
            continue
        try:
            started = calendar.timegm(
                time.strptime(entry.started, "%Y-%m-%dT%H:%M:%SZ")
            )
        except ValueError:
            continue
        ended = info.dead_time if info is not None and info.dead_time else now
        if ended - started > QUICK_EXIT_S:
            clear_starting_lock(doc)
            continue
        code = info.dead_status if info is not None else None
        status = f" (status {code})" if code is not None else ""
        mark_failed_start(doc, f"its agent in pane {entry.pane} exited at once{status}")


def _split_target(tmux: Tmux, session: str, name: str, column: int) -> str | None:
    panes = [
        p for p in tmux.panes().values()
        if p.session == session and p.window_name == name and not p.dead
    ]  # fmt: skip
    if not panes:
        return None
    ordered = sorted(panes, key=lambda p: (p.left, p.top))
    return ordered[0].pane_id if column == 0 else ordered[-1].pane_id
