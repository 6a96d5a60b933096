"""``claim``: bind a document to a tmux pane (spec §7.10, §8.3, §8.5).

Last call wins for the document; a pane owned by another live document is never
taken over (a new pane is provisioned next to it) unless ``force``. New template
documents get ``status`` and ``exchange`` components; the snapshot is saved with
an emptied exchange so text already there becomes the next diff.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import TmuxError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.bindings import DocSession
from agent_doc.tmux.bindings import bind_pane
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.bindings import resolve_target_session

DEFAULT_COMPONENTS = (
    "\n<!-- agent:status patch=replace -->\n<!-- /agent:status -->\n"
    "\n<!-- agent:exchange patch=append -->\n<!-- /agent:exchange -->\n"
)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """The Binding made by ``claim``."""

    file: str
    session_id: str
    pane: str
    window: str
    provisioned: bool
    scaffolded: bool


def _window_panes(tmux: Tmux, window: str) -> list[PaneInfo] | None:
    """Panes of ``window`` (id, name or target), ``None`` when it is dead."""
    target = ["-t", window] if window else []
    code, out, _ = tmux.try_run("list-panes", *target, "-F", "#{pane_id}")
    if code != 0:
        return None
    panes = tmux.panes()
    return [panes[p] for p in out if p in panes]


def resolve_window(
    tmux: Tmux, reg: registry.Registry, window: str | None
) -> list[PaneInfo] | None:
    """``--window`` if alive, else the first live window of a same-project entry."""
    if not window:
        return None
    found = _window_panes(tmux, window)
    if found is not None:
        return found
    cwd = str(reg.root)
    for entry in reg.entries.values():
        if entry.cwd == cwd and entry.window:
            found = _window_panes(tmux, entry.window)
            if found is not None:
                return found
    return None


def pane_at(panes: list[PaneInfo], position: str) -> str:
    """The pane at the ``left|right|top|bottom`` edge of ``panes``."""
    if not panes:
        raise TmuxError("no panes to choose a position from")
    keys = {
        "left": lambda p: p.left,
        "right": lambda p: -(p.left + p.width),
        "top": lambda p: p.top,
        "bottom": lambda p: -(p.top + p.height),
    }
    if position not in keys:
        raise TmuxError(f"unknown position {position!r} (left|right|top|bottom)")
    return min(panes, key=keys[position]).pane_id


def _scaffold(doc: DocSession) -> bool:
    from agent_doc.document.components import scan_components

    if doc.format != "template" or scan_components(doc.text).components:
        return False
    original = read_document(doc.path)
    text = original.text.rstrip("\n") + "\n" + DEFAULT_COMPONENTS
    write_document(doc.path, original, text)
    return True


def _empty_exchange(text: str) -> str:
    from agent_doc.document.components import find_component
    from agent_doc.document.components import replace_content
    from agent_doc.document.components import scan_components

    exchange = find_component(scan_components(text).components, "exchange")
    return text if exchange is None else replace_content(text, exchange, "")


def claim(
    file: Path | str,
    *,
    position: str | None = None,
    window: str | None = None,
    pane: str | None = None,
    force: bool = False,
    tmux: Tmux | None = None,
) -> ClaimResult:
    """Bind ``file`` to a pane: ``pane`` > ``position`` > ``$TMUX_PANE``."""
    tmux = tmux or Tmux.from_env()
    doc = load_doc(file)
    assert doc.key is not None
    provisioned = False
    with registry.locked(doc.root) as reg:
        panes = tmux.panes()
        reg.prune(panes)
        scoped = resolve_window(tmux, reg, window)
        if pane is None and position:
            if scoped is None:
                scoped = _window_panes(tmux, os.environ.get("TMUX_PANE", "")) or []
            pane = pane_at(scoped, position)
        target = pane or tmux.current_pane()
        info = panes.get(target)
        if info is None or info.dead:
            raise TmuxError(f"pane {target} is dead")
        owner = reg.owner_of(target)
        if owner is not None and owner != doc.key and not force:
            from agent_doc.tmux.route import provision_pane

            session = resolve_target_session(tmux, doc.root, info.session)
            new = provision_pane(tmux, reg, doc, session=session, split_target=target)
            if new is None:
                raise TmuxError(f"an agent for {doc.rel} is already starting")
            target, provisioned = new, True
        entry = bind_pane(reg, doc, target, tmux.panes())
    scaffolded = _scaffold(doc)
    text = read_document(doc.path).text
    StateStore(doc.root).save_snapshot(doc.path, _empty_exchange(text))
    log = doc.root / STATE_DIR / "claims.log"
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"Claimed {doc.rel} for pane {target}\n")
    tmux.display_message(target, f"Claimed {doc.rel} (pane {target})")
    return ClaimResult(doc.rel, doc.key, target, entry.window, provisioned, scaffolded)
