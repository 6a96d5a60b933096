"""Route ``/agent-doc FILE`` to the document's pane; start and provision panes.

``route`` (spec §7.9, §7.29): prune → ensure UUID → live pane → type the command
and verify Enter; dead or missing pane → auto-start cascade (startup lock
``.agent-doc/starting/<hash>.lock``), wait for the agent's prompt, send.
``provision_pane`` is the non-blocking variant used by claim and sync.
"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_doc.errors import TmuxError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import doc_hash
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.bindings import AGENT_WINDOW
from agent_doc.tmux.bindings import DocSession
from agent_doc.tmux.bindings import bind_pane
from agent_doc.tmux.bindings import has_prompt
from agent_doc.tmux.bindings import live_pane
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.bindings import require_agent_command
from agent_doc.tmux.bindings import resolve_target_session

if TYPE_CHECKING:
    from agent_doc.tmux.registry import Registry

STARTING_LOCK_S = 5.0


@dataclass(frozen=True, slots=True)
class RouteResult:
    """What ``route`` did: ``status`` ∈ sent / started / starting / debounced."""

    file: str
    pane: str | None
    status: str
    verified: bool = False


def command_for(doc: DocSession) -> str:
    """The text typed into the agent: ``/agent-doc <root-relative path>``."""
    return f"/agent-doc {doc.rel}"


def send_command(
    tmux: Tmux, pane: str, text: str, verify_s: float = 5.0, poll_s: float = 0.3
) -> bool:
    """Type ``text`` + Enter; re-press Enter until ``text`` leaves the input line."""
    tmux.send_text(pane, text, enter=True)
    deadline = time.monotonic() + verify_s
    while time.monotonic() < deadline:
        time.sleep(poll_s)
        lines = [ln for ln in tmux.capture(pane).splitlines() if ln.strip()]
        if not lines or not lines[-1].rstrip().endswith(text):
            return True
        tmux.send_keys(pane, "Enter")
    return verify_s <= 0


def _starting_lock(doc: DocSession) -> Path:
    return doc.root / STATE_DIR / "starting" / f"{doc_hash(doc.path)}.lock"


def _take_starting_lock(doc: DocSession) -> bool:
    """Create the startup lock; ``False`` when a start began < 5 s ago."""
    lock = _starting_lock(doc)
    try:
        if time.time() - lock.stat().st_mtime < STARTING_LOCK_S:
            return False
    except FileNotFoundError:
        pass
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(str(os.getpid()), "utf-8")
    return True


def provision_pane(
    tmux: Tmux,
    reg: Registry,
    doc: DocSession,
    *,
    session: str,
    split_target: str | None = None,
    before: bool = False,
) -> str | None:
    """Start the agent in a new pane for ``doc`` and bind it; never waits.

    Splits ``split_target`` (or a live registered pane of ``session``); a refused
    split falls back to a new window that is then stashed. Returns ``None`` when
    the startup lock says another start is under way.
    """
    command = f"exec {require_agent_command(doc.root)}"
    if not _take_starting_lock(doc):
        return None
    cwd = str(doc.root)
    panes = tmux.panes()
    if split_target is None:
        live = [
            panes[e.pane] for e in reg.entries.values()
            if e.pane in panes and not panes[e.pane].dead
            and panes[e.pane].session == session
        ]  # fmt: skip
        live.sort(key=lambda p: p.window_name != AGENT_WINDOW)
        split_target = live[0].pane_id if live else None
    if split_target is not None:
        try:
            pane = tmux.split(split_target, command, before=before, cwd=cwd)
        except TmuxError:
            from agent_doc.tmux.stash import stash_pane

            pane = tmux.new_window(session, AGENT_WINDOW, command, cwd)
            stash_pane(tmux, pane, session)
    else:
        pane = tmux.new_window(session, AGENT_WINDOW, command, cwd)
    bind_pane(reg, doc, pane, tmux.panes())
    return pane


def wait_for_prompt(tmux: Tmux, pane: str, timeout_s: float) -> bool:
    """Poll the pane (100 ms) until the agent's prompt shows; bounded."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = tmux.panes().get(pane)
        if info is None or info.dead:
            raise TmuxError(f"pane {pane} is dead")
        if has_prompt(tmux.capture(pane)):
            return True
        time.sleep(0.1)
    return False


def _debounced(doc: DocSession, debounce_ms: int | None) -> bool:
    if not debounce_ms:
        return False
    stamp = doc.root / STATE_DIR / "routed" / doc_hash(doc.path)
    try:
        return (time.time() - stamp.stat().st_mtime) * 1000 < debounce_ms
    except FileNotFoundError:
        return False


def _mark_routed(doc: DocSession) -> None:
    stamp = doc.root / STATE_DIR / "routed" / doc_hash(doc.path)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(str(time.time()), "utf-8")


def route(
    file: Path | str,
    *,
    pane: str | None = None,
    debounce_ms: int | None = None,
    verify_s: float = 5.0,
    prompt_timeout_s: float = 30.0,
    tmux: Tmux | None = None,
) -> RouteResult:
    """Send ``/agent-doc FILE`` to the document's pane, starting one if needed."""
    tmux = tmux or Tmux.from_env()
    doc = load_doc(file)
    if _debounced(doc, debounce_ms):
        return RouteResult(doc.rel, None, "debounced")
    with registry.locked(doc.root) as reg:
        panes = tmux.panes()
        reg.prune(panes)
        target = live_pane(reg, doc.key, panes)
        status = "sent"
        if target is None and pane is not None:
            info = panes.get(pane)
            if info is None or info.dead:
                raise TmuxError(f"pane {pane} is dead")
            if reg.owner_of(pane) in (None, doc.key):
                bind_pane(reg, doc, pane, panes)
                target = pane
        if target is None:
            session = resolve_target_session(tmux, doc.root, None, doc.tmux_session)
            target = provision_pane(tmux, reg, doc, session=session)
            if target is None:
                return RouteResult(doc.rel, None, "starting")
            status = "started"
    if status == "started" and not wait_for_prompt(tmux, target, prompt_timeout_s):
        return RouteResult(doc.rel, target, "starting")
    verified = send_command(tmux, target, command_for(doc), verify_s)
    tmux.focus(target)
    _mark_routed(doc)
    return RouteResult(doc.rel, target, status, verified)


def focus(file: Path | str | None, *, pane: str | None = None,
          tmux: Tmux | None = None) -> str:  # fmt: skip
    """Select the window and pane of the document (or ``pane``); return the pane."""
    tmux = tmux or Tmux.from_env()
    if pane is None:
        if file is None:
            raise TmuxError("focus needs a FILE or --pane")
        doc = load_doc(file, create=False)
        if doc.key is None:
            raise TmuxError(f"{doc.rel}: no session UUID; run agent-doc claim first")
        entry = registry.load(doc.root).entries.get(doc.key)
        if entry is None:
            raise TmuxError(f"{doc.rel}: no pane registered; run agent-doc claim")
        pane = entry.pane
    info = tmux.panes().get(pane)
    if info is None or info.dead:
        raise TmuxError(f"pane {pane} is dead")
    tmux.focus(pane)
    return pane


def start(file: Path | str, *, pane: str | None = None,
          tmux: Tmux | None = None) -> list[str]:  # fmt: skip
    """Bind the document to the current pane; return the agent argv to exec."""
    tmux = tmux or Tmux.from_env()
    doc = load_doc(file)
    command = require_agent_command(doc.root)
    pane = pane or tmux.current_pane()
    with registry.locked(doc.root) as reg:
        panes = tmux.panes()
        reg.prune(panes)
        bind_pane(reg, doc, pane, panes)
    return shlex.split(command)
