"""The ACP agents the server keeps running, one per session document.

A second turn on a document reuses its agent and session
(:class:`agent_doc.cycle.acp_live.LiveAgent`): no process start, no
``initialize``, no ``session/load``. An agent is stopped when its document is
closed, when the server shuts down, when its settings change (another agent
name, command, project or trust) and after
:data:`~agent_doc.cycle.acp_live.IDLE_TIMEOUT_S` without a turn.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from agent_doc.cycle.acp_live import IDLE_TIMEOUT_S
from agent_doc.cycle.acp_live import LiveAgent
from agent_doc.store.config import AgentCommand
from agent_doc_lsp.server import AgentDocLanguageServer


@dataclass
class LiveAgents:
    """URI → its running agent, and the timers that stop idle ones."""

    agents: dict[str, LiveAgent] = field(default_factory=dict)
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    answering: set[str] = field(default_factory=set)
    """URIs whose agent is in a turn (closing the document waits for its end)."""
    idle_timeout_s: float = IDLE_TIMEOUT_S


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, LiveAgents] = (
    weakref.WeakKeyDictionary()
)


def live_agents(ls: AgentDocLanguageServer) -> LiveAgents:
    """This server's running agents."""
    return _STATE.setdefault(ls, LiveAgents())


async def agent_for(
    ls: AgentDocLanguageServer, uri: str, name: str, agent: AgentCommand, cwd: Path
) -> LiveAgent:
    """The running agent of ``uri`` if it fits these settings, else a new one."""
    state = live_agents(ls)
    timer = state.timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    state.answering.add(uri)
    allow = ls.options.trust_workspace
    current = state.agents.get(uri)
    if current is not None and current.matches(name, agent, cwd, allow):
        return current
    if current is not None:
        await current.close()
    state.agents[uri] = LiveAgent(name, agent, cwd, allow_terminals=allow)
    return state.agents[uri]


async def turn_ended(ls: AgentDocLanguageServer, uri: str) -> None:
    """Start the idle timer of ``uri``'s agent; stop it now when it died or
    its document was closed during the turn."""
    state = live_agents(ls)
    state.answering.discard(uri)
    agent = state.agents.get(uri)
    if agent is None:
        return
    if not agent.alive or uri not in ls.buffers:
        await stop_agent(ls, uri)
        return
    loop = asyncio.get_running_loop()
    state.timers[uri] = loop.call_later(
        state.idle_timeout_s, lambda: loop.create_task(stop_agent(ls, uri))
    )


async def stop_agent(ls: AgentDocLanguageServer, uri: str) -> None:
    """Stop the agent of ``uri`` (document closed, idle), if one runs."""
    state = live_agents(ls)
    timer = state.timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    agent = state.agents.pop(uri, None)
    if agent is not None:
        await agent.close()


async def stop_all(ls: AgentDocLanguageServer) -> None:
    """Stop every agent (``shutdown``)."""
    for uri in list(live_agents(ls).agents):
        await stop_agent(ls, uri)


async def _closed(ls: AgentDocLanguageServer, uri: str) -> None:
    if uri not in live_agents(ls).answering:  # else: when the turn ends
        await stop_agent(ls, uri)


def register(server: AgentDocLanguageServer) -> None:
    """Stop a document's agent on ``didClose`` and every agent on ``shutdown``."""
    server.hooks.did_close.append(_closed)
    server.hooks.shutdown.append(stop_all)
