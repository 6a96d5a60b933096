# ruff: noqa: ARG002 - the SDK calls the client methods by keyword (session_id…)
"""What an ACP agent asks of its client, answered through an :class:`AcpHost`.

:class:`AcpClient` is the ``acp.Client`` the SDK calls for ``session/update``,
``session/request_permission``, ``fs/*`` and ``terminal/*``; it forwards each to
the host of the turn (the CLI's or the editor's) and turns host failures into
JSON-RPC errors for the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from pathlib import PurePosixPath
from typing import Any
from typing import Protocol

from agent_doc.cycle.acp_terminals import Terminals
from agent_doc.errors import AgentDocError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.store.config import AgentCommand


@dataclass(frozen=True, slots=True)
class PermissionChoice:
    """One option of an agent's permission request."""

    option_id: str
    """What goes back to the agent."""
    name: str
    """The label the person sees."""
    kind: str
    """``allow_once``, ``allow_always``, ``reject_once`` or ``reject_always``."""


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


def local_path(path: str, remote_root: str | None, root: Path) -> Path:
    """The local file a (possibly remote) agent means by ``path``.

    A path under ``remote_root`` (the project as a remote agent sees it) is
    the same path under the local project ``root``; any other path is taken
    as it is (the host refuses paths outside the project).
    """
    if remote_root is not None:
        try:
            inside = PurePosixPath(path).relative_to(PurePosixPath(remote_root))
        except ValueError:
            return Path(path)
        return root.joinpath(*inside.parts)
    return Path(path)


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


class TurnState(Protocol):
    """What :class:`AcpClient` needs of the turn it serves."""

    host: AcpHost
    cwd: Path
    agent: AgentCommand
    collecting: bool
    cancelled: bool

    async def add_chunk(self, text: str) -> None:
        """Record a streamed chunk of the answer."""

    def fail(self, error: AgentDocError) -> None:
        """Stop the turn because of ``error``."""


class AcpClient:
    """The ``acp.Client`` the SDK calls: every request goes to the turn's host."""

    def __init__(self, turn: TurnState) -> None:
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

        text = await _guard(self.turn.host.read_file(self._local(path)))
        return ReadTextFileResponse(content=slice_lines(text, line, limit))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> Any:
        from acp.schema import WriteTextFileResponse

        await _guard(self.turn.host.write_file(self._local(path), content))
        return WriteTextFileResponse()

    def _local(self, path: str) -> Path:
        return local_path(path, self.turn.agent.remote_root, self.turn.cwd)

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
        if kw.get("cwd"):
            kw["cwd"] = str(self._local(kw["cwd"]))
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
