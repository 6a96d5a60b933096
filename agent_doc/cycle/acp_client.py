"""The Agent Client Protocol backend: one turn with an agent that speaks ACP.

An ``[agents.NAME]`` table with ``transport = "acp"`` names a program that
speaks ACP (JSON-RPC over stdio: ``claude-agent-acp``, ``gemini
--experimental-acp``, a Codex adapter). :class:`AcpTurn` starts it,
``initialize``\\ s, opens a session (``session/load`` when the document's
``resume`` names one and the agent can load, else ``session/new``), sends the
prompt and collects the ``agent_message_chunk`` text until the turn ends.

Everything the agent asks of its client goes to an :class:`AcpHost`: streamed
text, plan and tool-call activity, permission questions, file reads and writes.
The CLI and the language server each provide one. ``acp`` (the SDK, which
imports pydantic, ~1 s) is imported only when an ACP turn runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc import __version__
from agent_doc.cycle.acp_live import LiveAgent
from agent_doc.cycle.acp_requests import AcpClient
from agent_doc.cycle.acp_requests import AcpHost
from agent_doc.cycle.cancel import GRACE_S
from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from acp.client.connection import ClientSideConnection

    from agent_doc.store.config import AgentCommand

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AcpReply:
    """What one ACP turn produced."""

    text: str
    """The agent's message text, every chunk joined."""
    session_id: str
    """The ACP session id (stored as ``resume``)."""
    stop_reason: str
    """``end_turn``, ``cancelled``, ``max_tokens``, ``refusal``…"""

    @property
    def interrupted(self) -> bool:
        """True when the turn was cancelled before the agent finished."""
        return self.stop_reason == "cancelled"


class AcpTurn:
    """One prompt turn with an ACP agent process (see the module docstring)."""

    def __init__(self, name: str, agent: AgentCommand, host: AcpHost, cwd: Path):
        self.name = name
        self.agent = agent
        self.host = host
        self.cwd = cwd
        self.session_id: str | None = None
        self.failure: AgentDocError | None = None
        self._chunks: list[str] = []
        self.collecting = False
        """True while the prompt runs (a replayed session's chunks are ignored)."""
        self._conn: ClientSideConnection | None = None
        self.cancelled = False
        self.agent_pid: int | None = None
        """The pid of the agent answering (its process group), once started."""
        self._agent: LiveAgent | None = None
        self.sent_prompt: str | None = None
        """The prompt sent (the resumed or the full form), once sent."""
        self.full_because: str | None = None
        """Why the whole document went in place of the resumed prompt:
        ``no-load`` (the agent cannot load sessions) or ``lost`` (it could not
        load this one); ``None`` when the resumed prompt was sent."""
        self._escalation: asyncio.Task[None] | None = None

    async def run(
        self,
        prompt: str,
        *,
        resume: str | None,
        timeout: float,
        live: LiveAgent | None = None,
        full_prompt: Callable[[], str] | None = None,
    ) -> AcpReply:
        """Run one prompt turn and return the answer.

        With ``live`` the turn uses that agent (started now if it is not
        running) and leaves it running; without, an agent is started for this
        turn and stopped after it. A failed turn stops the agent either way.
        ``prompt`` may be the resumed form: when the session ``resume`` names
        is neither live nor loaded, ``full_prompt()`` is sent to the new one.
        """
        agent = live or self._new_agent()
        self._agent = agent
        failed = True
        try:
            reply: AcpReply = await self._bounded(
                self._turn_with(agent, prompt, resume, full_prompt), timeout
            )
            failed = False
            return reply
        finally:
            self._conn, self._agent = None, None
            if self._escalation is not None:
                self._escalation.cancel()
            if live is None or failed:
                await agent.close()
            else:
                agent.turn_ended()

    async def probe(self, timeout: float) -> dict[str, Any]:
        """Start the agent and ``initialize`` only: its name, version, capabilities."""
        agent = self._new_agent()
        try:
            init = await self._bounded(self._connect(agent), timeout)
        finally:
            await agent.close()
        info = init.agent_info
        caps = init.agent_capabilities
        return {
            "protocol_version": init.protocol_version,
            "name": info.name if info else None,
            "version": info.version if info else None,
            "load_session": bool(caps and caps.load_session),
        }

    def _new_agent(self) -> LiveAgent:
        return LiveAgent(
            self.name, self.agent, self.cwd, allow_terminals=self.host.allow_terminals
        )

    async def _bounded(self, work: Any, timeout: float) -> Any:
        try:
            return await asyncio.wait_for(work, timeout)
        except asyncio.TimeoutError:
            raise AgentError(
                f"agent '{self.name}' timed out after {timeout:g} s"
            ) from None

    async def _connect(self, agent: LiveAgent) -> Any:
        """Route ``agent`` to this turn (starting and initializing it if needed)."""
        if agent.alive and agent.client is not None:
            agent.client.turn = self
        else:
            await agent.close()
            self._conn = await agent.start(AcpClient(self))
            agent.init = await self._initialize(self._conn)
        self._conn = agent.conn
        self.agent_pid = agent.pid
        return agent.init

    async def cancel(self, *, hurry: bool = False) -> None:
        """Stop the turn: ``session/cancel`` now; idempotent.

        An agent still answering :data:`~agent_doc.cycle.cancel.GRACE_S` later
        is stopped with its whole process group (at once with ``hurry``, a
        second Ctrl-C); what it said so far is kept, marked interrupted.
        """
        first, self.cancelled = not self.cancelled, True
        if first and self._conn is not None and self.session_id is not None:
            with contextlib.suppress(Exception):
                await self._conn.cancel(session_id=self.session_id)
        agent = self._agent
        if agent is None:
            return
        if hurry:
            await agent.kill(hurry=True)
        elif first:
            self._escalation = asyncio.get_running_loop().create_task(
                self._stop_unless_done(agent)
            )

    def _cancel_requested(self) -> bool:
        """Whether :meth:`cancel` was called (it may run while a call awaits)."""
        return self.cancelled

    async def _stop_unless_done(self, agent: LiveAgent) -> None:
        await asyncio.sleep(GRACE_S)
        if self._agent is agent:
            logger.warning(
                "agent '%s' still answers %gs after session/cancel: stopping it",
                self.name,
                GRACE_S,
            )
            await agent.kill()

    async def _turn_with(
        self,
        agent: LiveAgent,
        prompt: str,
        resume: str | None,
        full_prompt: Callable[[], str] | None,
    ) -> AcpReply:
        from acp import text_block

        init = await self._connect(agent)
        conn = agent.conn
        assert conn is not None
        can_load = bool(
            init.agent_capabilities and init.agent_capabilities.load_session
        )
        if resume is not None and resume == agent.session_id:
            self.session_id = resume  # the live session: nothing to load
        else:
            self.session_id = await self._open_session(
                conn, resume if can_load else None
            )
            agent.session_id = self.session_id
        if self.cancelled:
            return AcpReply("", self.session_id, "cancelled")
        if full_prompt is not None and self.session_id != resume:
            prompt = full_prompt()  # a new session has none of the document
            self.full_because = "lost" if can_load else "no-load"
        self.sent_prompt = prompt
        self.collecting = True
        try:
            result = await _call(
                self.name,
                "session/prompt",
                conn.prompt(session_id=self.session_id, prompt=[text_block(prompt)]),
                agent,
            )
        except AgentError:
            if not self._cancel_requested() or self.failure is not None:
                raise
            # stopped after a cancel: what it said so far stands, interrupted
            return AcpReply(self.text_so_far, self.session_id, "cancelled")
        finally:
            self.collecting = False
        if self.failure is not None:
            raise self.failure
        stop = "cancelled" if self.cancelled else str(result.stop_reason)
        return AcpReply("".join(self._chunks), self.session_id, stop)

    async def _initialize(self, conn: ClientSideConnection) -> Any:
        from acp import PROTOCOL_VERSION
        from acp.schema import ClientCapabilities
        from acp.schema import FileSystemCapabilities
        from acp.schema import Implementation

        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=self.host.allow_terminals,
        )
        return await _call(
            self.name,
            "initialize",
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=caps,
                client_info=Implementation(name="agent-doc", version=__version__),
            ),
            self._agent,
        )

    async def _open_session(
        self, conn: ClientSideConnection, resume: str | None
    ) -> str:
        cwd = self.agent.remote_root or str(self.cwd)  # as the agent sees it
        if resume:
            try:
                await conn.load_session(cwd=cwd, session_id=resume, mcp_servers=[])
                return resume
            except Exception as exc:  # the agent forgot it: start over
                logger.warning(
                    "agent '%s' cannot load session %s: %s", self.name, resume, exc
                )
        new = await _call(
            self.name,
            "session/new",
            conn.new_session(cwd=cwd, mcp_servers=[]),
            self._agent,
        )
        return str(new.session_id)

    @property
    def text_so_far(self) -> str:
        """The answer received until now (all chunks joined)."""
        return "".join(self._chunks)

    async def add_chunk(self, text: str) -> None:
        """Record a streamed chunk of the answer and tell the host."""
        if not self.collecting or not text:
            return
        self._chunks.append(text)
        await self.host.on_text("".join(self._chunks))

    def fail(self, error: AgentDocError) -> None:
        """Stop the turn because of ``error`` (raised once the agent returns)."""
        if self.failure is None:
            self.failure = error
        asyncio.get_running_loop().create_task(self.cancel())


async def _call(
    name: str, method: str, call: Any, agent: LiveAgent | None = None
) -> Any:
    """Await ``call``; its failure as one ``AgentError`` line.

    An agent that went away is named with the last line of its stderr (an
    ``ssh`` agent: why the connection failed) or, over a WebSocket, as a
    closed connection.
    """
    from acp import RequestError

    try:
        return await call
    except RequestError as exc:
        raise AgentError(f"agent '{name}' failed {method}: {exc}") from exc
    except (ConnectionError, EOFError, asyncio.IncompleteReadError) as exc:
        if agent is not None and agent.agent.transport == "acp-ws":
            raise AgentError(
                f"agent '{name}' at {agent.agent.url} closed the connection "
                f"during {method}"
            ) from exc
        detail = await agent.last_error() if agent is not None else None
        raise AgentError(
            f"agent '{name}' exited during {method}" + (f": {detail}" if detail else "")
        ) from exc
