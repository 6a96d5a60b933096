# ruff: noqa: ARG002 - the SDK calls the client methods by keyword (session_id…)
"""The Agent Client Protocol backend: one turn with an agent that speaks ACP.

An ``[agents.NAME]`` table with ``transport = "acp"`` names a program that
speaks ACP (JSON-RPC over stdio: ``claude-code-acp``, ``gemini
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
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from typing import cast

from agent_doc.cycle.acp_terminals import Terminals
from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from agent_doc.store.config import AgentCommand

logger = logging.getLogger(__name__)

STDIO_LIMIT = 50 * 1024 * 1024
"""Largest JSON-RPC line accepted from the agent (the SDK's own default)."""


@dataclass(frozen=True, slots=True)
class PermissionChoice:
    """One option of an agent's permission request."""

    option_id: str
    """What goes back to the agent."""
    name: str
    """The label the person sees."""
    kind: str
    """``allow_once``, ``allow_always``, ``reject_once`` or ``reject_always``."""


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


class AcpHost(Protocol):
    """The side of agent-doc that answers an ACP agent (CLI or editor)."""

    allow_terminals: bool
    """Offer the ``terminal/*`` capability (trusted workspaces only)."""

    async def on_text(self, text: str) -> None:
        """The answer so far grew: ``text`` is the whole answer up to now."""

    async def on_activity(self, message: str) -> None:
        """The agent's plan or a tool call changed (one line for the person)."""

    async def ask_permission(
        self, title: str, choices: list[PermissionChoice]
    ) -> str | None:
        """Return the chosen ``option_id``, or ``None`` when dismissed."""

    async def read_file(self, path: Path) -> str:
        """Return the text of ``path`` (an open document's live buffer first)."""

    async def write_file(self, path: Path, content: str) -> None:
        """Replace the text of ``path`` (an open document: as an editor edit)."""


def pick_by_policy(policy: str, choices: list[PermissionChoice]) -> str | None:
    """The option a fixed ``allow``/``reject`` policy answers (``None``: cancel)."""
    allow = ("allow_once", "allow_always")
    order: tuple[str, ...] = (
        allow if policy == "allow" else ("reject_once", "reject_always")
    )
    for kind in order:
        for choice in choices:
            if choice.kind == kind:
                return choice.option_id
    return None


def slice_lines(text: str, line: int | None, limit: int | None) -> str:
    """``fs/read_text_file`` semantics: from 1-based ``line``, at most ``limit``."""
    if line is None and limit is None:
        return text
    lines = text.splitlines(keepends=True)
    start = max((line or 1) - 1, 0)
    end = None if limit is None else start + max(limit, 0)
    return "".join(lines[start:end])


def describe_update(update: Any) -> str | None:
    """One line about a plan or tool-call update (``None`` for other updates)."""
    kind = getattr(update, "session_update", None)
    if kind == "plan":
        entries = [f"[{e.status}] {e.content}" for e in update.entries]
        return "plan: " + "; ".join(entries) if entries else None
    if kind in ("tool_call", "tool_call_update"):
        title = getattr(update, "title", None) or update.tool_call_id
        status = getattr(update, "status", None)
        return f"tool: {title}" + (f" ({status})" if status else "")
    return None


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

    async def run(self, prompt: str, *, resume: str | None, timeout: float) -> AcpReply:
        """Start the agent, run one prompt turn, stop the agent; return the answer."""
        from acp import spawn_agent_process

        if shutil.which(self.agent.command) is None:
            raise AgentError(f"agent command '{self.agent.command}' not found on PATH")
        env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
        client = _Client(self)
        try:
            async with spawn_agent_process(
                cast("Any", client),
                self.agent.command,
                *self.agent.args,
                env=env,
                cwd=self.cwd,
                transport_kwargs={"limit": STDIO_LIMIT},
            ) as (conn, _process):
                self._conn = conn
                return await asyncio.wait_for(self._turn(conn, prompt, resume), timeout)
        except asyncio.TimeoutError:
            raise AgentError(
                f"agent '{self.name}' timed out after {timeout:g} s"
            ) from None
        except OSError as exc:
            raise AgentError(f"cannot start agent '{self.name}': {exc}") from exc
        finally:
            self._conn = None
            if client.terminals is not None:
                client.terminals.close()

    async def cancel(self) -> None:
        """Ask the agent to stop the turn (``session/cancel``); idempotent."""
        self.cancelled = True
        if self._conn is not None and self.session_id is not None:
            with contextlib.suppress(Exception):
                await self._conn.cancel(session_id=self.session_id)

    async def _turn(
        self, conn: ClientSideConnection, prompt: str, resume: str | None
    ) -> AcpReply:
        from acp import PROTOCOL_VERSION
        from acp import text_block
        from acp.schema import ClientCapabilities
        from acp.schema import FileSystemCapabilities
        from acp.schema import Implementation

        from agent_doc import __version__

        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=self.host.allow_terminals,
        )
        init = await _call(
            self.name,
            "initialize",
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=caps,
                client_info=Implementation(name="agent-doc", version=__version__),
            ),
        )
        can_load = bool(
            init.agent_capabilities and init.agent_capabilities.load_session
        )
        self.session_id = await self._open_session(conn, resume if can_load else None)
        if self.cancelled:
            return AcpReply("", self.session_id, "cancelled")
        self.collecting = True
        try:
            result = await _call(
                self.name,
                "session/prompt",
                conn.prompt(session_id=self.session_id, prompt=[text_block(prompt)]),
            )
        finally:
            self.collecting = False
        if self.failure is not None:
            raise self.failure
        stop = "cancelled" if self.cancelled else str(result.stop_reason)
        return AcpReply("".join(self._chunks), self.session_id, stop)

    async def _open_session(
        self, conn: ClientSideConnection, resume: str | None
    ) -> str:
        cwd = str(self.cwd)
        if resume:
            try:
                await conn.load_session(cwd=cwd, session_id=resume, mcp_servers=[])
                return resume
            except Exception as exc:  # the agent forgot it: start over
                logger.warning(
                    "agent '%s' cannot load session %s: %s", self.name, resume, exc
                )
        new = await _call(
            self.name, "session/new", conn.new_session(cwd=cwd, mcp_servers=[])
        )
        return str(new.session_id)

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


async def _call(name: str, method: str, call: Any) -> Any:
    from acp import RequestError

    try:
        return await call
    except RequestError as exc:
        raise AgentError(f"agent '{name}' failed {method}: {exc}") from exc
    except (ConnectionError, EOFError, asyncio.IncompleteReadError) as exc:
        raise AgentError(f"agent '{name}' exited during {method}") from exc


class _Client:
    """The ``acp.Client`` the SDK calls: every request goes to the turn's host."""

    def __init__(self, turn: AcpTurn) -> None:
        self.turn = turn
        self.terminals: Terminals | None = None

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            await self.turn.add_chunk(getattr(update.content, "text", "") or "")
            return
        line = describe_update(update)
        if line and self.turn.collecting:
            await self.turn.host.on_activity(line)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **_: Any
    ) -> Any:
        from acp.schema import AllowedOutcome
        from acp.schema import DeniedOutcome
        from acp.schema import RequestPermissionResponse

        choices = [PermissionChoice(o.option_id, o.name, str(o.kind)) for o in options]
        title = getattr(tool_call, "title", None) or "the agent asks permission"
        try:
            picked = await self.turn.host.ask_permission(title, choices)
        except AgentDocError as exc:
            self.turn.fail(exc)
            picked = None
        if picked is None or self.turn.cancelled:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=picked)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **_: Any,
    ) -> Any:
        from acp.schema import ReadTextFileResponse

        text = await _guard(self.turn.host.read_file(Path(path)))
        return ReadTextFileResponse(content=slice_lines(text, line, limit))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> Any:
        from acp.schema import WriteTextFileResponse

        await _guard(self.turn.host.write_file(Path(path), content))
        return WriteTextFileResponse()

    def _terminals(self) -> Terminals:
        from acp import RequestError

        if not self.turn.host.allow_terminals:
            raise RequestError(
                -32601, "terminals are off: the workspace is not trusted"
            )
        if self.terminals is None:
            self.terminals = Terminals(self.turn.cwd)
        return self.terminals

    async def create_terminal(self, session_id: str, command: str, **kw: Any) -> Any:
        return await self._terminals().create(command, **kw)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        return self._terminals().output(terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> Any:
        return await self._terminals().wait(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        return self._terminals().kill(terminal_id)

    async def release_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> Any:
        return self._terminals().release(terminal_id)


async def _guard(call: Any) -> Any:
    """Turn an ``AgentDocError``/``OSError`` of the host into a JSON-RPC error."""
    from acp import RequestError

    try:
        return await call
    except (AgentDocError, OSError, ValueError) as exc:
        raise RequestError(-32002, str(exc)) from exc
