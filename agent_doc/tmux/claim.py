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

from agent_doc.document.components import find_component
from agent_doc.document.components import replace_content
from agent_doc.document.components import scan_components
from agent_doc.errors import TmuxError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_profile import agent_profile
from agent_doc.tmux.agent_profile import pane_kind
from agent_doc.tmux.bindings import DocSession
from agent_doc.tmux.bindings import bind_pane
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.bindings import resolve_target_session
from agent_doc.tmux.processes import ancestors
from agent_doc.tmux.route import clear_failed_start
from agent_doc.tmux.route import provision_pane

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
    if doc.format != "template" or scan_components(doc.text).components:
        return False
    with doc_lock(doc.path):  # re-read under the lock: a writer may have come first
        original = read_document(doc.path)
        if scan_components(original.text).components:
            return False
        text = original.text.rstrip("\n") + "\n" + DEFAULT_COMPONENTS
        write_document(doc.path, original, text)
    return True


def _empty_exchange(text: str) -> str:
    exchange = find_component(scan_components(text).components, "exchange")
    return text if exchange is None else replace_content(text, exchange, "")


_SPLIT_SIDE = {  # position -> (horizontal, before)
    "left": (True, True),
    "right": (True, False),
    "top": (False, True),
    "bottom": (False, False),
}


def caller_pane(client_pane: str | None) -> str | None:
    """The pane the request comes from: the editor's own, else ``$TMUX_PANE``."""
    return client_pane or os.environ.get("TMUX_PANE") or None


def _caller_is_agent(root: Path, pane: str, panes: dict[str, PaneInfo]) -> bool:
    """Whether this process was started by an agent running in ``pane``."""
    info = panes.get(pane)
    if info is None:
        return False
    profile = agent_profile(root)
    return any(argv and profile.is_agent(argv) for argv in ancestors(info.pid))


def _protected(
    root: Path, client_pane: str | None, panes: dict[str, PaneInfo]
) -> set[str]:
    """Panes claim never binds: the editor's, and a calling shell's (not an agent's)."""
    protected = {client_pane} if client_pane else set()
    own = os.environ.get("TMUX_PANE")
    if (
        own
        and own not in protected
        and not _caller_is_agent(root, own, panes)
        and not _runs_agent(root, own, panes)
    ):
        protected.add(own)
    return protected


def _runs_agent(root: Path, pane: str, panes: dict[str, PaneInfo]) -> bool:
    """Whether ``pane``'s foreground process is a configured agent (not a shell
    or an editor), so that binding it can never type into the person's tools."""
    info = panes.get(pane)
    return info is not None and pane_kind(info, agent_profile(root)) == "agent"


def _new_pane_beside(
    tmux: Tmux, reg: registry.Registry, doc: DocSession, beside: PaneInfo,
    position: str,
) -> str:  # fmt: skip
    """Start the agent in a new pane at ``position`` of ``beside``; bind it."""
    horizontal, before = _SPLIT_SIDE[position]
    clear_failed_start(doc)
    new = provision_pane(
        tmux, reg, doc, session=beside.session, split_target=beside.pane_id,
        before=before, horizontal=horizontal, explicit=True,
    )  # fmt: skip
    if new is None:
        raise TmuxError(f"an agent for {doc.rel} is already starting")
    return new


def _in_window(
    tmux: Tmux, reg: registry.Registry, doc: DocSession, window: str
) -> tuple[str, bool]:
    """``claim --window W`` from outside tmux: an agent pane of ``W`` that no
    other document is bound to, else a new agent pane at ``W``'s right edge.

    Returns the pane and whether it was started for ``doc``.
    """
    scoped = resolve_window(tmux, reg, window)
    if not scoped:
        raise TmuxError(f"no live tmux window {window!r} (tmux list-windows -a)")
    profile = agent_profile(doc.root)
    for info in scoped:
        owner = reg.owner_of(info.pane_id, tmux.socket_path)
        free = owner in (None, doc.key)
        if free and not info.dead and pane_kind(info, profile) == "agent":
            return info.pane_id, False
    edge = next(p for p in scoped if p.pane_id == pane_at(scoped, "right"))
    return _new_pane_beside(tmux, reg, doc, edge, "right"), True


def claim(
    file: Path | str,
    *,
    position: str | None = None,
    window: str | None = None,
    pane: str | None = None,
    force: bool = False,
    client_pane: str | None = None,
    tmux: Tmux | None = None,
) -> ClaimResult:
    """Bind ``file`` to a pane: ``pane`` > ``position`` > the calling agent's pane.

    ``window`` alone (from outside tmux) binds a free agent pane of that window,
    else starts one at its right edge.

    ``client_pane`` is the pane the request comes from (the editor's; the CLI
    uses ``$TMUX_PANE``). It is never bound, nor is the pane of a calling shell:
    a ``position`` whose edge is such a pane, or no target at all, starts the
    agent in a new pane split off it on that side (default ``right``).
    """
    tmux = tmux or Tmux.from_env()
    caller = caller_pane(client_pane)
    if pane is None and not window and caller is None:
        raise TmuxError("not inside tmux: give --pane %N or --window W")
    if position is not None and position not in _SPLIT_SIDE:
        raise TmuxError(f"unknown position {position!r} (left|right|top|bottom)")
    doc = load_doc(file)
    assert doc.key is not None
    provisioned = False
    socket = tmux.socket_path
    with registry.locked(doc.root) as reg:
        panes = tmux.probe_panes()
        if panes is not None:
            reg.adopt(socket)
        panes = panes or {}
        protected = _protected(doc.root, client_pane, panes)
        if pane is not None and pane in protected:
            raise TmuxError(
                f"pane {pane} runs your editor or shell; claim an agent's pane "
                "(or use agent-doc start there)"
            )
        target = pane
        if target is None and window and not position and caller is None:
            target, provisioned = _in_window(tmux, reg, doc, window)
        elif target is None and (position or caller in protected):
            side = position or "right"
            scoped = resolve_window(tmux, reg, window)
            if scoped is None and caller is not None:
                scoped = _window_panes(tmux, caller)
            if not scoped:
                raise TmuxError("not inside tmux and no live --window: give --pane %N")
            edge = next(p for p in scoped if p.pane_id == pane_at(scoped, side))
            if edge.pane_id in protected:
                target = _new_pane_beside(tmux, reg, doc, edge, side)
                provisioned = True
            else:
                target = edge.pane_id
        target = target or caller or tmux.current_pane()
        info = tmux.panes().get(target)
        if info is None or info.dead:
            raise TmuxError(f"pane {target} is dead")
        owner = reg.owner_of(target, socket)
        if owner is not None and owner != doc.key and not force:
            session = resolve_target_session(tmux, doc.root, info.session)
            new = provision_pane(tmux, reg, doc, session=session, split_target=target)
            if new is None:
                raise TmuxError(f"an agent for {doc.rel} is already starting")
            target, provisioned = new, True
        entry = bind_pane(reg, doc, target, tmux.panes(), socket)
    scaffolded = _scaffold(doc)
    text = read_document(doc.path).text
    StateStore(doc.root).save_snapshot(doc.path, _empty_exchange(text))
    log = doc.root / STATE_DIR / "claims.log"
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"Claimed {doc.rel} for pane {target}\n")
    tmux.display_message(target, f"Claimed {doc.rel} (pane {target})")
    return ClaimResult(doc.rel, doc.key, target, entry.window, provisioned, scaffolded)
