"""Route ``/agent-doc FILE`` to the document's pane; start and provision panes.

``route`` (spec §7.9, §7.29): ensure UUID → live pane (on the binding's own
tmux server) → type the command and verify Enter; dead or missing pane →
auto-start cascade (startup lock ``.agent-doc/starting/<hash>.lock``), wait for
the agent's prompt (elapsed time on a terminal), send. Nothing here prunes the
registry: only ``resync --fix`` does.
``provision_pane`` is the non-blocking variant used by claim and sync.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import TmuxError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import doc_hash
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_profile import agent_argv
from agent_doc.tmux.agent_profile import agent_profile
from agent_doc.tmux.agent_profile import exec_line
from agent_doc.tmux.agent_profile import pane_kind
from agent_doc.tmux.bindings import AGENT_WINDOW
from agent_doc.tmux.bindings import DocSession
from agent_doc.tmux.bindings import bind_pane
from agent_doc.tmux.bindings import live_pane
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.bindings import require_agent_command
from agent_doc.tmux.bindings import resolve_target_session
from agent_doc.tmux.servers import UNREACHABLE
from agent_doc.tmux.servers import Servers
from agent_doc.tmux.stash import stash_pane
from agent_doc.tmux.submit import send_command
from agent_doc.tmux.submit import wait_for_prompt
from agent_doc.write.waiting import elapsed_on_terminal

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.tmux.registry import Registry
    from agent_doc.tmux.registry import SessionEntry

STARTING_LOCK_S = 5.0


class RouteResult(Record):
    """What ``route`` did: ``status`` ∈ sent / started / starting / debounced."""

    __slots__ = ("file", "pane", "status", "verified")

    def __init__(
        self,
        file: str,
        pane: str | None,
        status: str,
        verified: bool = False,
    ) -> None:
        self.file = file
        self.pane = pane
        self.status = status
        self.verified = verified


def command_for(doc: DocSession) -> str:
    """The text typed into the agent: ``/agent-doc <root-relative path>``."""
    return f"/agent-doc {doc.rel}"


def _starting_lock(doc: DocSession) -> Path:
    return doc.root / STATE_DIR / "starting" / f"{doc_hash(doc.path)}.lock"


def clear_starting_lock(doc: DocSession) -> None:
    """Forget the startup lock of ``doc`` (its last start is over)."""
    _starting_lock(doc).unlink(missing_ok=True)


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


def _failed_marker(doc: DocSession) -> Path:
    return doc.root / STATE_DIR / "starting" / f"{doc_hash(doc.path)}.failed"


def mark_failed_start(doc: DocSession, detail: str) -> None:
    """Remember that ``doc``'s agent exited right after an automatic start."""
    marker = _failed_marker(doc)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(detail + "\n", "utf-8")


def failed_start(doc: DocSession) -> str | None:
    """Why ``doc``'s last automatic start failed (``None``: it did not)."""
    try:
        return _failed_marker(doc).read_text("utf-8").strip() or "exited"
    except OSError:
        return None


def clear_failed_start(doc: DocSession) -> None:
    """Forget a failed start (an explicit route, claim or start retries)."""
    _failed_marker(doc).unlink(missing_ok=True)


def provision_pane(
    tmux: Tmux,
    reg: Registry,
    doc: DocSession,
    *,
    session: str,
    split_target: str | None = None,
    before: bool = False,
    horizontal: bool = True,
    explicit: bool = False,
) -> str | None:
    """Start the agent in a new pane for ``doc`` and bind it; never waits.

    Splits ``split_target`` (or a live registered pane of ``session``); a refused
    split falls back to a new window that is then stashed. Returns ``None`` when
    the startup lock says another start is under way (``explicit``: a user's
    claim, which always starts one).
    """
    require_agent_command(doc.root)
    if not _take_starting_lock(doc) and not explicit:
        return None
    command = exec_line(agent_argv(doc))
    cwd = str(doc.root)
    panes = tmux.panes()
    if split_target is None:
        live = [
            panes[e.pane] for e in reg.entries.values()
            if e.same_server(tmux.socket_path)
            and e.pane in panes and not panes[e.pane].dead
            and panes[e.pane].session == session
        ]  # fmt: skip
        live.sort(key=lambda p: p.window_name != AGENT_WINDOW)
        split_target = live[0].pane_id if live else None
    if split_target is not None:
        try:
            pane = tmux.split(
                split_target, command, horizontal=horizontal, before=before, cwd=cwd
            )
        except TmuxError:
            pane = tmux.new_window(session, AGENT_WINDOW, command, cwd)
            stash_pane(tmux, pane, session)
    else:
        pane = tmux.new_window(session, AGENT_WINDOW, command, cwd)
    bind_pane(reg, doc, pane, tmux.panes(), tmux.socket_path)
    return pane


def _not_the_caller(
    reg: Registry, doc: DocSession, target: str | None, panes: dict[str, PaneInfo]
) -> str | None:
    """``target`` unless it is the caller's own pane without an agent in it.

    A binding to the editor's or a shell's pane (left by an older claim) would
    type the command into the editor; it is dropped so an agent is started.
    """
    info = panes.get(target or "")
    if info is None or target != os.environ.get("TMUX_PANE"):
        return target
    if pane_kind(info, agent_profile(doc.root)) == "agent":
        return target
    reg.unbind(doc.key or "")
    return None


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


def _bound_elsewhere(
    servers: Servers, doc: DocSession, entry: SessionEntry | None
) -> Tmux | None:
    """The server of ``doc``'s binding when it is not the current one and its
    pane is alive there; raises when that server does not answer."""
    if entry is None or servers.is_current(entry):
        return None
    found = servers.pane_of(entry)
    if found == UNREACHABLE:
        raise TmuxError(
            f"{doc.rel} is bound to pane {entry.pane} on tmux server "
            f"{entry.socket}, which is not reachable (agent-doc uses "
            f"{servers.current_socket}); start that server or set "
            f"AGENT_DOC_TMUX_SOCKET to it, or agent-doc claim {doc.rel} to bind "
            "a pane here"
        )
    if isinstance(found, PaneInfo) and not found.dead:
        return servers.tmux_for(entry)
    return None


def _given_pane(
    reg: Registry, doc: DocSession, pane: str, panes: dict[str, PaneInfo], socket: str
) -> str:
    """``--pane``: it must be a live pane of the current server that no other
    document is bound to; ``doc`` is bound to it."""
    info = panes.get(pane)
    if info is None:
        raise TmuxError(f"pane {pane} does not exist on tmux server {socket}")
    if info.dead:
        raise TmuxError(f"pane {pane} is dead (its agent exited)")
    owner = reg.owner_of(pane, socket)
    if owner not in (None, doc.key):
        other = reg.entries[owner].file or owner
        raise TmuxError(
            f"pane {pane} is bound to {other}; agent-doc claim {doc.rel} "
            f"--pane {pane} --force takes it over"
        )
    bind_pane(reg, doc, pane, panes, socket)
    return pane


def route(
    file: Path | str,
    *,
    pane: str | None = None,
    debounce_ms: int | None = None,
    verify_s: float = 5.0,
    prompt_timeout_s: float = 30.0,
    tmux: Tmux | None = None,
) -> RouteResult:
    """Send ``/agent-doc FILE`` to the document's pane, starting one if needed.

    ``pane`` routes to that pane (binding the document to it) and fails when
    it does not exist. A binding on another tmux server is used there; on an
    unreachable one it is left alone and the route fails. A started agent
    must show its prompt within ``prompt_timeout_s``, else
    :class:`~agent_doc.tmux.submit.AgentNotReady` (exit 75) is raised.
    """
    tmux = tmux or Tmux.from_env()
    doc = load_doc(file)
    agent_profile(doc.root)  # a bad prompt_pattern fails before anything starts
    if _debounced(doc, debounce_ms):
        return RouteResult(doc.rel, None, "debounced")
    servers = Servers(tmux)
    with registry.locked(doc.root) as reg:
        socket = servers.current_socket
        panes = servers.panes_on(socket)
        if panes is not None:
            reg.adopt(socket)
        panes = panes or {}
        status = "sent"
        if pane is not None:
            target: str | None = _given_pane(reg, doc, pane, panes, socket)
        else:
            elsewhere = _bound_elsewhere(servers, doc, reg.entries.get(doc.key or ""))
            if elsewhere is not None:
                tmux = elsewhere
                target = reg.entries[doc.key or ""].pane
            else:
                target = live_pane(reg, doc.key, panes, socket)
                target = _not_the_caller(reg, doc, target, panes)
        if target is None:
            session = resolve_target_session(tmux, doc.root, None, doc.tmux_session)
            retry = failed_start(doc) is not None  # the last start is not under way
            clear_failed_start(doc)
            target = provision_pane(tmux, reg, doc, session=session, explicit=retry)
            if target is None:
                return RouteResult(doc.rel, None, "starting")
            status = "started"
    if status == "started":
        with elapsed_on_terminal(
            f"waiting for the agent's prompt in pane {target}", first_tick=0
        ):
            wait_for_prompt(tmux, target, agent_profile(doc.root), prompt_timeout_s)
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
    """Bind the document to the current pane; return the agent argv to exec.

    claude gets ``claude_args`` with §6.1's precedence (frontmatter > global
    config > ``AGENT_DOC_CLAUDE_ARGS``), like ``run``.
    """
    tmux = tmux or Tmux.from_env()
    own = os.environ.get("TMUX_PANE")
    if pane is not None and pane != own:
        raise TmuxError(
            f"start runs the agent in this terminal, which is not pane {pane}"
            + (f" (it is {own})" if own else " (not inside tmux)")
            + f"; run agent-doc start in pane {pane}, or agent-doc claim FILE "
            f"--pane {pane} to bind an agent already running there"
        )
    doc = load_doc(file)
    require_agent_command(doc.root)
    pane = pane or tmux.current_pane()
    argv = agent_argv(doc)
    with registry.locked(doc.root) as reg:
        panes = tmux.panes()
        if pane not in panes:
            raise TmuxError(
                f"pane {pane} does not exist on tmux server {tmux.socket_path}"
            )
        bind_pane(reg, doc, pane, panes, tmux.socket_path)
    clear_failed_start(doc)
    return argv
