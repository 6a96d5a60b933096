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

(``agentDoc.run`` is the VS Code extension's own command id, bound to
``agentDoc.route``; a server command of that name would collide with it.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agent_doc.cycle.acp_client import AcpReply
from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.acp_live import LiveAgent
from agent_doc.cycle.turn import PreparedTurn
from agent_doc.cycle.turn_lock import acquire_turn
from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError
from agent_doc.errors import ServerTimeout
from agent_doc.share.room_link import RoomTarget
from agent_doc.store.config import AgentCommand
from agent_doc_lsp.features import acp_agents
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features import served_save
from agent_doc_lsp.features.acp_host import EditorHost
from agent_doc_lsp.features.acp_host import answering
from agent_doc_lsp.features.agent_status import add_lens_provider
from agent_doc_lsp.features.agent_status import refresh_lenses
from agent_doc_lsp.features.commands import AGENT_DOC_ERROR
from agent_doc_lsp.features.commands import path_of
from agent_doc_lsp.features.cost_consent import run_with_consent
from agent_doc_lsp.features.local_link import LocalLink
from agent_doc_lsp.features.share_sync import landed_in_room
from agent_doc_lsp.features.share_sync import landed_on_disk_in_room
from agent_doc_lsp.features.share_sync import prepare_shared_turn
from agent_doc_lsp.features.share_sync import room_turn
from agent_doc_lsp.features.share_sync import shared_doc
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

RUN_AGENT = "agentDoc.runAgent"
STOP_AGENT = "agentDoc.stopAgent"
ANSWER_AGENT = "agentDoc.answerAgent"
SERVER_HINT = "run the agent again when that turn has ended"
"""The refusal's advice when another process runs the document's turn."""
FINAL_ATTEMPTS = 3
"""Times the final answer is sent (each one up to ``writeTimeoutMs``)."""


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


@dataclass
class Running:
    """One turn in progress."""

    turn: AcpTurn
    host: EditorHost


@dataclass
class AcpState:
    """Per-server state of this feature."""

    running: dict[str, Running] = field(default_factory=dict)
    """URI → the turn answering it."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, AcpState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> AcpState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, AcpState())


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
            return await _answer(
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


async def _answer(
    ls: AgentDocLanguageServer,
    link: LocalLink,
    turn: PreparedTurn,
    acp_turn: AcpTurn,
    host: EditorHost,
    live: LiveAgent,
    full_prompt: Callable[[], str],
    room: RoomTarget | None = None,
) -> dict[str, Any]:
    from agent_doc.cycle.acp_run import final_answer
    from agent_doc.cycle.agents import DEFAULT_TIMEOUT_S

    await host.start()
    reply: AcpReply | None = None
    failure: AgentDocError | None = None
    try:
        reply = await acp_turn.run(
            turn.prompt,
            resume=turn.front.resume,
            timeout=DEFAULT_TIMEOUT_S,
            live=live,
            full_prompt=full_prompt if turn.mode == "resumed" else None,
        )
    except AgentDocError as exc:
        # The agent died or timed out: keep what it already said, marked.
        if not acp_turn.text_so_far.strip() or acp_turn.session_id is None:
            raise
        failure = exc
        reply = AcpReply(acp_turn.text_so_far, acp_turn.session_id, "cancelled")
    finally:
        stopped = "interrupted" if reply is None or reply.interrupted else "done"
        await host.stop(stopped)
    answer = final_answer(reply, acp_turn.name)
    target = "disk"
    if host.stream is not None and ls.buffers.by_path(turn.path) is not None:
        await _finish_in_buffer(turn.path, host, answer, reply.session_id, room)
        target = "server"
    elif host.stream is not None:  # the person closed the buffer mid-stream
        await asyncio.to_thread(
            _closed_mid_stream, turn.path, host, answer, reply, room
        )
    else:
        await asyncio.to_thread(
            _write_at_end, link, turn, answer, reply.session_id, room
        )
    if failure is not None:
        raise failure
    return {
        "agent": acp_turn.name,
        "sessionId": reply.session_id,
        "stopReason": reply.stop_reason,
        "interrupted": reply.interrupted,
        "target": target,
        "edits": host.edits,
    }


async def _finish_in_buffer(
    path: Path,
    host: EditorHost,
    answer: str,
    session_id: str,
    room: RoomTarget | None = None,
) -> None:
    """The whole answer and ``resume`` in one edit; snapshot saved. In a
    shared document the session stays on this host, the room's snapshot
    becomes the answer (a served buffer not joined: once it is saved)."""
    from agent_doc.cycle.room_turn import keep_host_session
    from agent_doc.write.stream import begin_final
    from agent_doc.write.stream import finish_stream

    shared = shared_doc(host.ls, host.uri)
    in_room = shared is not None or room is not None
    ours = host.final_target(answer, None if in_room else session_id)
    answer_id = host.stream.boundary_id if host.stream is not None else None
    await asyncio.to_thread(begin_final, path, answer, ours, answer_id)
    for attempt in range(1, FINAL_ATTEMPTS + 1):  # a fast typist may outpace one
        try:
            await host.push_final(ours)
            break
        except ServerTimeout:
            if attempt == FINAL_ATTEMPTS:
                raise
    await asyncio.to_thread(finish_stream, path, ours, answer_id)
    if shared is not None:
        await landed_in_room(shared, path, ours, session_id)
    elif room is not None:
        await asyncio.to_thread(keep_host_session, path, session_id)
        served_save.until_saved(host.ls, host.uri, room, path, ours)
    host.announce_landed(ours)


def _closed_mid_stream(
    path: Path,
    host: EditorHost,
    answer: str,
    reply: AcpReply,
    room: RoomTarget | None = None,
) -> None:
    """The buffer closed mid-stream: the answer finished on disk (in a shared
    document the room's snapshot follows, the session stays on this host)."""
    from agent_doc.write.stream import begin_final
    from agent_doc.write.stream import finish_on_disk

    stream = host.stream
    assert stream is not None
    ours = host.final_target(answer, reply.session_id if room is None else None)
    begin_final(path, answer, ours, stream.boundary_id)
    finish_on_disk(path, stream, ours, stream.boundary_id)
    if room is not None:
        landed_on_disk_in_room(room, path, ours, reply.session_id)


def _write_at_end(
    link: LocalLink,
    turn: PreparedTurn,
    answer: str,
    sid: str,
    room: RoomTarget | None = None,
) -> None:
    """No open buffer: one write through the write path (disk); in a shared
    document the room's snapshot follows, the session stays on this host."""
    from agent_doc.automation.lifecycle import post_write
    from agent_doc.cycle.turn import with_resume
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import write_response

    response = with_resume(answer, sid, turn.front) if room is None else answer
    request = WriteRequest(turn.path, response, baseline=turn.text, origin="acp")
    outcome = write_response(request, link, on_written=post_write)
    if room is not None:
        landed_on_disk_in_room(room, turn.path, outcome.content_ours, sid)


async def stop_agent(ls: AgentDocLanguageServer, uri: str) -> dict[str, Any]:
    """Cancel the turn answering ``uri`` (``session/cancel``)."""
    running = state_of(ls).running.get(uri)
    if running is None:
        raise AgentError("no agent is answering this document")
    running.host.cancelled.set()
    await running.turn.cancel()
    return {"stopping": True}


def _changed(ls: AgentDocLanguageServer, uri: str) -> None:
    for running in state_of(ls).running.values():
        if running.host.uri == uri:
            running.host.buffer_changed()


def answer_agent(ls: AgentDocLanguageServer, uri: str, option: str) -> dict[str, Any]:
    """Answer the permission question offered as lenses on ``uri``."""
    running = state_of(ls).running.get(uri)
    question = running.host.question if running else None
    if question is None or question.answer.done():
        raise AgentError("no agent question is waiting on this document")
    names = {c.option_id: c.name for c in question.choices}
    if option not in names:
        raise AgentError(f"the agent offered no option {option!r}")
    question.answer.set_result(option)
    return {"uri": uri, "option": option, "label": names[option]}


def stop_lens(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """``Stop agent`` while an ACP agent answers; ``Answer:`` lenses for questions."""
    uri = params.text_document.uri
    running = state_of(ls).running.get(uri)
    if running is None or not ls.options.code_lens:
        return []
    start = types.Position(line=0, character=0)
    where = types.Range(start=start, end=start)
    lenses = [_lens(where, "Stop agent", STOP_AGENT, {"uri": uri})]
    question = running.host.question
    for choice in question.choices if question else []:
        args = {"uri": uri, "option": choice.option_id}
        lenses.append(_lens(where, f"Answer: {choice.name}", ANSWER_AGENT, args))
    return lenses


def _lens(
    where: types.Range, title: str, command: str, args: dict[str, str]
) -> types.CodeLens:
    return types.CodeLens(
        range=where,
        command=types.Command(title=title, command=command, arguments=[args]),
    )


async def _guarded(call: Any) -> Any:
    try:
        return await call
    except AgentDocError as exc:
        logger.warning("command failed: %s", exc)
        raise JsonRpcException(message=str(exc), code=AGENT_DOC_ERROR) from exc


def register(server: AgentDocLanguageServer) -> None:
    """Register ``agentDoc.runAgent``, ``agentDoc.stopAgent`` and the stop lens."""
    add_lens_provider(server, stop_lens)
    server.hooks.did_change.append(_changed)

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
