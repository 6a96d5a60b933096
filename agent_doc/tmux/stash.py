"""Stash windows: where unwanted agent panes wait, alive, until needed (spec §8.4).

Stash windows are named ``stash`` (tmux may de-duplicate to ``stash-N``).
:func:`stash_pane` joins a pane into the session's stash (largest pane as the
target, window resized to 200 rows first); when tmux refuses, the pane is broken
out into an overflow window also named ``stash``. :func:`repair_layout` is §7.36.
"""

from __future__ import annotations

from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.adapter import WindowInfo
from agent_doc.tmux.adapter import is_stash_window_name

STASH = "stash"


def stash_windows(windows: list[WindowInfo], session: str) -> list[WindowInfo]:
    """The stash windows of ``session``, primary (lowest index) first."""
    found = [
        w for w in windows if w.session == session and is_stash_window_name(w.name)
    ]
    return sorted(found, key=lambda w: (w.name != STASH, w.index))


def _largest(panes: dict[str, PaneInfo], window_id: str, skip: str) -> str | None:
    inside = [
        p for p in panes.values() if p.window_id == window_id and p.pane_id != skip
    ]
    if not inside:
        return None
    return max(inside, key=lambda p: p.height * p.width).pane_id


def stash_pane(tmux: Tmux, pane: str, session: str) -> None:
    """Move ``pane`` into the stash window of ``session`` (it keeps running)."""
    panes = tmux.panes()
    info = panes.get(pane)
    if info is None:
        return
    if is_stash_window_name(info.window_name) and info.session == session:
        return
    stashes = stash_windows(tmux.windows(), session)
    if stashes:
        target = _largest(panes, stashes[0].window_id, pane)
        if target is not None:
            tmux.try_run("resize-window", "-t", stashes[0].window_id, "-y", "200")
            if tmux.join(pane, target, horizontal=False):
                return
    if info.window_id and _alone(panes, info):
        tmux.try_run("rename-window", "-t", info.window_id, STASH)
        if info.session != session:
            tmux.try_run("move-window", "-s", info.window_id, "-t", f"={session}:")
        return
    tmux.break_out(pane, session, STASH)


def _alone(panes: dict[str, PaneInfo], info: PaneInfo) -> bool:
    return sum(1 for p in panes.values() if p.window_id == info.window_id) == 1


def repair_layout(
    tmux: Tmux, session: str, window_name: str, rescue: list[str]
) -> None:
    """Normalise the session before a sync (§7.36).

    1. merge secondary stash windows into the primary one; 2. if no window named
    ``window_name`` exists, break the first live ``rescue`` pane found in a
    stash out into it; 3. move that window to index 0.
    """
    windows = tmux.windows()
    mine = [w for w in windows if w.session == session]
    stashes = stash_windows(windows, session)
    target = next((w for w in mine if w.name == window_name), None)
    if target is None or len(stashes) > 1:
        panes = tmux.panes()
        for secondary in stashes[1:]:
            for p in [p for p in panes.values() if p.window_id == secondary.window_id]:
                dest = _largest(tmux.panes(), stashes[0].window_id, p.pane_id)
                if dest is not None:
                    tmux.join(p.pane_id, dest, horizontal=False)
        if target is None:
            panes = tmux.panes()
            for pane in rescue:
                info = panes.get(pane)
                if info and not info.dead and is_stash_window_name(info.window_name):
                    tmux.break_out(pane, session, window_name)
                    break
    move_to_front(tmux, session, window_name)


def move_to_front(tmux: Tmux, session: str, window_name: str) -> None:
    """Move window ``window_name`` of ``session`` to index 0 (§7.36 phase 3)."""
    windows = tmux.windows()
    target = next(
        (w for w in windows if w.session == session and w.name == window_name), None
    )
    if target is not None and target.index != 0:
        occupied = any(w.session == session and w.index == 0 for w in windows)
        if occupied:
            tmux.try_run("swap-window", "-d", "-s", target.window_id,
                         "-t", f"={session}:0")  # fmt: skip
        else:
            tmux.try_run("move-window", "-s", target.window_id, "-t", f"={session}:0")
