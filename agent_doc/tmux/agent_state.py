"""Agent lifecycle state inferred from its tmux pane (docs: agent-lifecycle-state).

The agent *is* its terminal: each observation hashes the pane's visible text
and reads ``pane_dead`` / ``pane_current_command``. :func:`infer` is pure:

* Starting → Running on the first change of output;
* Running → NeedsInput when the output has not changed for ``idle_s`` (at once
  when a permission prompt is showing — ``waiting_permission``);
* NeedsInput → Stale after a further ``stale_s``; new output → Running;
* dead pane or agent gone back to its shell → Exited (exit code when known);
  any configured agent counts as running, scripts too (:func:`pane_kind`);
* the binding's tmux server does not answer → Unknown (never Exited: an
  unreachable server says nothing about its panes; ``server`` names it).

:func:`agent_states` keeps observations in ``.agent-doc/agent_state.json`` so
separate CLI runs see time pass; the language server can pass its own dict.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection
from pathlib import Path

from agent_doc._runtime.digest import sha256_hex
from agent_doc._runtime.record import Record
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_profile import agent_profile
from agent_doc.tmux.agent_profile import pane_kind
from agent_doc.tmux.prompts import parse_prompt
from agent_doc.tmux.screen import strip_ansi
from agent_doc.tmux.servers import UNREACHABLE
from agent_doc.tmux.servers import Servers

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

STARTING, RUNNING, NEEDS_INPUT, STALE, EXITED = (
    "starting", "running", "needs_input", "stale", "exited",
)  # fmt: skip
UNKNOWN = "unknown"
"""The pane's tmux server does not answer: nothing is known of its agent."""


class AgentStateConfig(Record):
    """Timeouts (seconds) of the inference."""

    __slots__ = ("idle_s", "stale_s")

    def __init__(self, idle_s: float = 5.0, stale_s: float = 60.0) -> None:
        self.idle_s = idle_s
        self.stale_s = stale_s

    @classmethod
    def from_env(cls) -> AgentStateConfig:
        """``AGENT_DOC_IDLE_TIMEOUT_MS`` / ``AGENT_DOC_STALE_TIMEOUT_MS`` override."""
        idle = os.environ.get("AGENT_DOC_IDLE_TIMEOUT_MS")
        stale = os.environ.get("AGENT_DOC_STALE_TIMEOUT_MS")
        return cls(
            idle_s=int(idle) / 1000 if idle and idle.isdigit() else 5.0,
            stale_s=int(stale) / 1000 if stale and stale.isdigit() else 60.0,
        )


class Observation(Record):
    """What was last seen in a pane."""

    __slots__ = ("screen_hash", "changed_at", "state", "since")

    def __init__(
        self,
        screen_hash: str,
        changed_at: float,
        state: str,
        since: float,
    ) -> None:
        self.screen_hash = screen_hash
        self.changed_at = changed_at
        self.state = state
        self.since = since


class AgentStatus(Record):
    """A document's pane and its agent's state (``status --json`` item)."""

    __slots__ = (
        "session_id",
        "file",
        "pane",
        "state",
        "since",
        "waiting_permission",
        "exit_code",
        "command",
        "agent",
        "server",
    )

    def __init__(
        self,
        session_id: str,
        file: str,
        pane: str,
        state: str,
        since: float,
        waiting_permission: bool = False,
        exit_code: int | None = None,
        command: str = "",
        agent: str = "",
        server: str = "",
    ) -> None:
        self.session_id = session_id
        self.file = file
        self.pane = pane
        self.state = state
        self.since = since
        self.waiting_permission = waiting_permission
        self.exit_code = exit_code
        self.command = command
        self.agent = agent
        """The configured agent's name when it runs in the pane (``claude``...)."""
        self.server = server
        """Socket path of the tmux server the pane lives on."""


def infer(
    prev: Observation | None,
    screen_hash: str,
    *,
    alive: bool,
    permission: bool,
    now: float,
    config: AgentStateConfig,
) -> Observation:
    """The next observation of one pane (pure)."""

    def to(state: str, changed_at: float) -> Observation:
        since = prev.since if prev is not None and prev.state == state else now
        return Observation(screen_hash, changed_at, state, since)

    if not alive:
        return to(EXITED, prev.changed_at if prev else now)
    if prev is None:
        return to(NEEDS_INPUT if permission else STARTING, now)
    if screen_hash != prev.screen_hash:
        return to(NEEDS_INPUT if permission else RUNNING, now)
    idle = now - prev.changed_at
    if idle >= config.idle_s + config.stale_s:
        return to(STALE, prev.changed_at)
    if permission or idle >= config.idle_s:
        return to(NEEDS_INPUT, prev.changed_at)
    return to(prev.state if prev.state != EXITED else RUNNING, prev.changed_at)


def _store_path(root: Path) -> Path:
    return root / STATE_DIR / "agent_state.json"


def _load_store(root: Path) -> dict[str, Observation]:
    try:
        raw = json.loads(_store_path(root).read_text("utf-8"))
        return {k: Observation(**v) for k, v in raw.items()}
    except (OSError, ValueError, TypeError):
        return {}


def agent_states(
    root: Path,
    *,
    tmux: Tmux | None = None,
    config: AgentStateConfig | None = None,
    store: dict[str, Observation] | None = None,
    now: float | None = None,
    keys: Collection[str] | None = None,
) -> list[AgentStatus]:
    """Observe every registered pane of the project once; return their states.

    Each pane is observed on its own tmux server; a server that does not
    answer gives :data:`UNKNOWN` (its observations are kept as they were).

    ``keys`` limits the observation to those session ids (the language server
    watches only the documents open in the editor).
    """
    tmux = tmux or Tmux.from_env()
    config = config or AgentStateConfig.from_env()
    persist = store is None
    memory: dict[str, Observation] = _load_store(root) if store is None else store
    now = time.time() if now is None else now
    servers = Servers(tmux)
    profile = agent_profile(root)
    result: list[AgentStatus] = []
    for key, entry in sorted(registry.load(root).entries.items()):
        if keys is not None and key not in keys:
            continue
        socket = servers.socket_of(entry)
        found = servers.pane_of(entry)
        if found == UNREACHABLE:
            result.append(AgentStatus(
                session_id=key, file=entry.file, pane=entry.pane, state=UNKNOWN,
                since=now, server=socket,
            ))  # fmt: skip
            continue
        info = found if isinstance(found, PaneInfo) else None
        kind = pane_kind(info, profile) if info is not None and not info.dead else ""
        alive = kind in ("agent", "other")
        screen = (
            servers.tmux_for(entry).capture(entry.pane)
            if info is not None and not info.dead else ""
        )  # fmt: skip
        permission = parse_prompt(screen).active
        digest = sha256_hex(strip_ansi(screen).encode())
        obs = infer(memory.get(key), digest, alive=alive, permission=permission,
                    now=now, config=config)  # fmt: skip
        memory[key] = obs
        result.append(AgentStatus(
            session_id=key, file=entry.file, pane=entry.pane, state=obs.state,
            since=obs.since, waiting_permission=permission and alive,
            exit_code=info.dead_status if info is not None and info.dead else None,
            command=info.command if info else "",
            agent=profile.name if kind == "agent" else "", server=socket,
        ))  # fmt: skip
    if persist:
        data: dict[str, Any] = {k: v._asdict() for k, v in memory.items()}
        # atomic, not fsynced: what was last seen in a pane, not user data (a
        # lost file only restarts the idle timers), and two fsyncs cost more
        # than the whole observation
        text = json.dumps(data, indent=2) + "\n"
        atomic_write_text(_store_path(root), text, durable=False)
    return result
