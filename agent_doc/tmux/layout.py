"""``layout``: put the panes of some documents side by side (spec §7.12).

Only bindings of the current tmux server are arranged; one on another server,
without a binding or with a dead pane is skipped with a warning. Other
registered panes in the target window are stashed; shells are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.stash import stash_pane
from agent_doc.tmux.sync import resolve_document


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
        doc = resolve_document(file)
        if doc is None:
            warnings.append(f"{file}: no session; skipped")
            continue
        reg = registry.load(doc.root)
        owners.update(e.pane for e in reg.entries.values())
        entry = reg.entries.get(doc.key or "")
        if entry is None or (window and entry.window != window):
            warnings.append(f"{doc.rel}: no pane registered; skipped")
        elif not entry.same_server(tmux.socket_path):
            warnings.append(
                f"{doc.rel}: pane {entry.pane} is on tmux server {entry.socket}; "
                "skipped"
            )
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
