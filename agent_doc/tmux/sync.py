"""``sync``: mirror the editor's columns in one tmux window (spec §7.20, §7.31–7.36).

Resolve files (no UUID → unmanaged, skipped; empty columns dropped; column memory
in ``last_layout.json``) → ``repair_layout`` → find each document's live pane or
provision one (non-blocking) → reconcile attach-first: SNAPSHOT, FAST PATH,
ATTACH/REORDER (``join-pane``: ``-h -f`` between columns, ``-v`` within one),
SELECT focus, DETACH (stash, never kill), VERIFY.
"""

from __future__ import annotations

import itertools
import json
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
from agent_doc.tmux.route import provision_pane
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


def _resolve(file: str) -> DocSession | None:
    try:
        doc = load_doc(file, create=False)
    except AgentDocError:
        return None
    return doc if doc.key else None


def _memory(root: Path) -> Path:
    return root / STATE_DIR / "last_layout.json"


def resolve_columns(columns: list[list[str]]) -> list[list[DocSession]]:
    """Managed documents per column, with column memory for emptied columns."""
    cols = [[f for f in col if f.strip()] for col in columns]
    cols = [c for c in cols if c]
    resolved = [[d for d in map(_resolve, col) if d is not None] for col in cols]
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
            remembered = _resolve(str(memory[str(index)]))
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


def _place_anchor(tmux: Tmux, anchor: str, session: str, name: str) -> str:
    """Put ``anchor`` into window ``name`` of ``session``; return the window id."""
    panes = tmux.panes()
    info = panes[anchor]
    if info.window_name == name and info.session == session:
        return info.window_id
    host = next(
        (p for p in panes.values() if p.session == session and p.window_name == name),
        None,
    )
    if host is not None and tmux.join(anchor, host.pane_id, horizontal=True, full=True):
        return host.window_id
    return tmux.break_out(anchor, session, name)


def _reconcile(
    tmux: Tmux, want: list[list[str]], focus: str, session: str, name: str
) -> str:
    """Make window ``name`` hold exactly ``want`` (attach-first); return its id."""
    window = _place_anchor(tmux, want[0][0], session, name)
    if current_columns(tmux.panes(), window) == want:
        tmux.focus(focus)
        return window
    flat = [p for col in want for p in col]
    for col_index, col in enumerate(want[1:], start=1):
        prev = want[col_index - 1][0]
        if not tmux.join(col[0], prev, horizontal=True, full=True):
            tmux.join(col[0], prev, horizontal=True)
    for col in want:
        for above, pane in itertools.pairwise(col):
            tmux.join(pane, above, horizontal=False)
    tmux.focus(focus)
    for info in tmux.panes().values():
        if info.window_id == window and info.pane_id not in flat:
            stash_pane(tmux, info.pane_id, session)
    tmux.try_run("select-layout", "-t", window, "-E")
    return window


def sync(
    columns: list[list[str]],
    focus: str | None = None,
    window: str | None = None,
    tmux: Tmux | None = None,
) -> SyncResult:
    """Arrange the documents' panes as ``columns``; focus ``focus``'s pane."""
    tmux = tmux or Tmux.from_env()
    docs = resolve_columns(columns)
    if not docs:
        return SyncResult(None, (), {}, True, False)
    root = docs[0][0].root
    context = None
    if window:
        code, out, _ = tmux.try_run("display-message", "-p", "-t", window, "#S")
        context = out[0] if code == 0 and out else None
    window_name = window if window and not window.startswith("@") else AGENT_WINDOW
    with registry.locked(root) as reg:
        panes = tmux.panes()
        reg.prune(panes)
        if context is None:
            context = next(
                (panes[p].session for col in docs for d in col
                 if (p := live_pane(reg, d.key, panes))),
                None,
            )  # fmt: skip
        session = resolve_target_session(tmux, root, context)
        rescue = [p for col in docs for d in col if (p := live_pane(reg, d.key, panes))]
        repair_layout(tmux, session, window_name, rescue)
        panes = tmux.panes()
        want: list[list[str]] = []
        files: dict[str, str] = {}
        for index, col in enumerate(docs):
            want.append([])
            for doc in col:
                pane = live_pane(reg, doc.key, panes)
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
        want = [c for c in want if c]
    if not want:
        return SyncResult(None, (), files, False, False)
    focus_pane = files.get(str(Path(focus).absolute())) if focus else None
    before = tmux.panes()
    target = _reconcile(tmux, want, focus_pane or want[0][0], session, window_name)
    move_to_front(tmux, session, window_name)
    got = current_columns(tmux.panes(), target)
    changed = current_columns(before, target) != got
    return SyncResult(target, tuple(map(tuple, got)), files, got == want, changed)


def _split_target(tmux: Tmux, session: str, name: str, column: int) -> str | None:
    panes = [
        p for p in tmux.panes().values()
        if p.session == session and p.window_name == name and not p.dead
    ]  # fmt: skip
    if not panes:
        return None
    ordered = sorted(panes, key=lambda p: (p.left, p.top))
    return ordered[0].pane_id if column == 0 else ordered[-1].pane_id


@dataclass(frozen=True, slots=True)
class LayoutResult:
    """Panes arranged by ``layout`` and warnings for skipped files."""

    window: str | None
    panes: tuple[str, ...]
    warnings: tuple[str, ...]


def layout(
    files: list[str],
    split: str = "h",
    window: str | None = None,
    tmux: Tmux | None = None,
) -> LayoutResult:
    """Arrange the files' panes side by side (``h``) or stacked (``v``) (§7.12)."""
    tmux = tmux or Tmux.from_env()
    warnings: list[str] = []
    panes = tmux.panes()
    wanted: list[str] = []
    owners: set[str] = set()
    for file in files:
        doc = _resolve(file)
        if doc is None:
            warnings.append(f"{file}: no session; skipped")
            continue
        reg = registry.load(doc.root)
        owners.update(e.pane for e in reg.entries.values())
        entry = reg.entries.get(doc.key or "")
        if entry is None or (window and entry.window != window):
            warnings.append(f"{doc.rel}: no pane registered; skipped")
        elif entry.pane not in panes or panes[entry.pane].dead:
            warnings.append(f"{doc.rel}: pane {entry.pane} is dead; skipped")
        elif entry.pane not in wanted:
            wanted.append(entry.pane)
    if len(wanted) < 2:
        if wanted:
            tmux.focus(wanted[0])
        return LayoutResult(panes[wanted[0]].window_id if wanted else None,
                            tuple(wanted), tuple(warnings))  # fmt: skip

    def score(win: str) -> tuple[int, int]:
        inside = [p for p in panes.values() if p.window_id == win]
        return sum(p.pane_id in wanted for p in inside), len(inside)

    target = max({panes[p].window_id for p in wanted}, key=score)
    for info in panes.values():
        if info.window_id == target and info.pane_id in owners - set(wanted):
            stash_pane(tmux, info.pane_id, info.session)
    anchor = next(p for p in wanted if panes[p].window_id == target)
    previous = anchor
    for pane in wanted:
        if pane != anchor:
            tmux.join(pane, previous, horizontal=split != "v")
            previous = pane
    tmux.focus(wanted[0])
    return LayoutResult(target, tuple(wanted), tuple(warnings))
