"""``agentDoc.runAgent`` and ``agentDoc.stopAgent``: an ACP agent answers in the buffer.

``agentDoc.runAgent {uri}`` sends the document's changes (the prompt every
backend sends) to the document's agent when it is configured with
``transport = "acp"``. With the document open the answer streams into the
buffer below the person's prompt (:mod:`agent_doc_lsp.features.acp_host`); when
the turn ends the answer is final, ``resume`` is set to the ACP session id (a
second small edit, in the frontmatter) and the snapshot is the answer's
``content_ours``. Without an open buffer the file is written once, at the end,
through the one write path.

``agentDoc.stopAgent {uri}`` (and the ``Stop agent`` lens shown while an agent
answers) sends ``session/cancel``: what streamed stays, marked interrupted.
``agentDoc.answerAgent {uri, option}`` answers a permission question offered
as ``Answer:`` lenses (clients without ``window/showMessageRequest`` actions).

The answer lands through :mod:`agent_doc_lsp.features.acp_answer`; the
running turns, the stop and answer lenses are
:mod:`agent_doc_lsp.features.acp_controls`.

(``agentDoc.run`` is the VS Code extension's own command id, bound to
``agentDoc.route``; a server command of that name would collide with it.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
from pygls.exceptions import JsonRpcException

from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.turn import PreparedTurn
from agent_doc.cycle.turn_lock import acquire_turn
from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError
from agent_doc.share.room_link import RoomTarget
from agent_doc.store.config import AgentCommand
from agent_doc_lsp.features import acp_agents
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features.acp_answer import answer_turn
from agent_doc_lsp.features.acp_controls import ANSWER_AGENT
from agent_doc_lsp.features.acp_controls import STOP_AGENT
from agent_doc_lsp.features.acp_controls import Running
from agent_doc_lsp.features.acp_controls import answer_agent
from agent_doc_lsp.features.acp_controls import buffer_changed
from agent_doc_lsp.features.acp_controls import state_of
from agent_doc_lsp.features.acp_controls import stop_agent
from agent_doc_lsp.features.acp_controls import stop_lens
from agent_doc_lsp.features.acp_host import EditorHost
from agent_doc_lsp.features.acp_host import answering
from agent_doc_lsp.features.agent_status import add_lens_provider
from agent_doc_lsp.features.agent_status import refresh_lenses
from agent_doc_lsp.features.commands import AGENT_DOC_ERROR
from agent_doc_lsp.features.commands import path_of
from agent_doc_lsp.features.cost_consent import run_with_consent
from agent_doc_lsp.features.local_link import LocalLink
from agent_doc_lsp.features.share_sync import prepare_shared_turn
from agent_doc_lsp.features.share_sync import room_turn
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

RUN_AGENT = "agentDoc.runAgent"
SERVER_HINT = "run the agent again when that turn has ended"
"""The refusal's advice when another process runs the document's turn."""


@attrs.define
class AgentArgs:
    """``agentDoc.runAgent`` / ``agentDoc.stopAgent``: the session document."""

    uri: str
    """The session document."""
    yes: bool = False
    """Send a prompt above ``prompt_limit_bytes`` without asking."""


@attrs.define
class AnswerArgs:
    """``agentDoc.answerAgent``: pick an option of the agent's permission question."""

    uri: str
    """The session document whose agent asks."""
    option: str
    """The ``optionId`` of the chosen option."""


def _acp_agent(turn: PreparedTurn) -> tuple[str, AgentCommand]:
    """The document's agent, which must speak ACP."""
    from agent_doc.cycle.agents import resolve_agent_name
    from agent_doc.store.config import load_global_config

    config = load_global_config()
    name = resolve_agent_name(None, turn.front.agent, config)
    agent = config.agents.get(name)
    if agent is None or not agent.speaks_acp:
        raise AgentError(
            f"agent '{name}' is not an ACP agent: set transport = \"acp\" or "
            f'"acp-ws" in '
            f"[agents.{name}] (tmux agents are driven by agentDoc.route)"
        )
    return name, agent


async def run_agent(
    ls: AgentDocLanguageServer, uri: str, approved: bool = False
) -> dict[str, Any]:
    """Run one ACP turn on ``uri`` (see the module docstring).

    Refused while another process (``run``, ``watch``) runs a turn on it, and
    (:class:`~agent_doc.cycle.cost_guard.PromptTooLarge`) when its prompt is
    above the limit and not ``approved``.
    """
    path = path_of(uri)
    state = state_of(ls)
    if uri in state.running:
        raise AgentError("an agent is already answering this document")
    _refuse_if_busy(path)
    held = await asyncio.to_thread(acquire_turn, path, "server", hint=SERVER_HINT)
    try:
        async with room_turn(ls, uri, path, "server", SERVER_HINT) as room:
            return await _run_holding(ls, uri, path, approved, room)
    finally:
        held.release()


async def _run_holding(
    ls: AgentDocLanguageServer,
    uri: str,
    path: Path,
    approved: bool,
    room: RoomTarget | None = None,
) -> dict[str, Any]:
    """The turn of :func:`run_agent`, once the document's turn lock is held
    (and ``room``'s turn, for a shared document)."""
    from agent_doc.cycle.cost_guard import cost_guard_for
    from agent_doc.write.outcome import normalize_text
    from agent_doc.write.stream import StreamedAnswer

    state = state_of(ls)
    link = LocalLink(ls, asyncio.get_running_loop())
    turn = await prepare_shared_turn(ls, uri, path, link)
    if turn is None:
        return {"noChanges": True}
    name, agent = await asyncio.to_thread(_acp_agent, turn)
    guard = await asyncio.to_thread(cost_guard_for, path, approved=approved)
    guard.check_turn(turn)  # before anything is shown or sent
    buffer = ls.buffers.by_path(path)
    stream = None
    if buffer is not None:
        configs, _ = ls.configs_for(buffer.uri)
        stream = StreamedAnswer(normalize_text(turn.text), configs)
    roots = ls.roots() or [turn.root]
    host = EditorHost(
        ls, buffer.uri if buffer else uri, stream, title=name, roots=roots,
        document=path, prompt_text=turn.text,
    )  # fmt: skip
    acp_turn = AcpTurn(name, agent, host, turn.root)
    state.running[uri] = Running(acp_turn, host)
    refresh_lenses(ls)
    try:
        live = await acp_agents.agent_for(ls, host.uri, name, agent, turn.root)
        with _generating(ls, path, host.uri, name):
            full_prompt = guard.full_prompt_of(turn)
            return await answer_turn(
                ls, link, turn, acp_turn, host, live, full_prompt, room
            )
    finally:
        state.running.pop(uri, None)
        await acp_agents.turn_ended(ls, host.uri)
        refresh_lenses(ls)


def _refuse_if_busy(path: Path) -> None:
    """Raise while another agent-doc operation holds the document's status."""
    from agent_doc.automation.busy import get_status

    current = get_status(path)
    if current != "idle":
        raise AgentError(
            f"another agent-doc operation works on this document ({current})"
        )


@contextlib.contextmanager
def _generating(
    ls: AgentDocLanguageServer, path: Path, uri: str, name: str
) -> Iterator[None]:
    """The busy guard (``generating``) and ``agentDoc/status`` during a turn."""
    from agent_doc.automation.busy import busy

    agent_status.override(ls, uri, answering(name))
    try:
        with busy(path, "generating", heartbeat=True):
            yield
    finally:
        agent_status.override(ls, uri, None)


async def _guarded(call: Any) -> Any:
    try:
        return await call
    except AgentDocError as exc:
        logger.warning("command failed: %s", exc)
        raise JsonRpcException(message=str(exc), code=AGENT_DOC_ERROR) from exc


def register(server: AgentDocLanguageServer) -> None:
    """Register ``agentDoc.runAgent``, ``agentDoc.stopAgent`` and the stop lens."""
    add_lens_provider(server, stop_lens)
    server.hooks.did_change.append(buffer_changed)

    @server.command(RUN_AGENT)
    async def run_agent_(ls: AgentDocLanguageServer, args: AgentArgs) -> Any:
        return await _guarded(run_with_consent(ls, args.uri, args.yes, run_agent))

    @server.command(STOP_AGENT)
    async def stop_agent_(ls: AgentDocLanguageServer, args: AgentArgs) -> Any:
        return await _guarded(stop_agent(ls, args.uri))

    @server.command(ANSWER_AGENT)
    async def answer_agent_(ls: AgentDocLanguageServer, args: AnswerArgs) -> Any:
        async def answer() -> dict[str, Any]:
            return answer_agent(ls, args.uri, args.option)

        return await _guarded(answer())
