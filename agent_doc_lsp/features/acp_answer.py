"""The end of an ACP turn in the editor: the answer, final, where the document is.

The agent's answer streamed into the open buffer while it came
(:mod:`agent_doc_lsp.features.acp_host`); when the turn ends it lands once:

- the buffer still open: the whole answer and ``resume`` in one verified
  edit, the snapshot the answer's ``content_ours``;
- the buffer closed mid-stream: finished on disk;
- no buffer at all: one write through the one write path.

In a shared document the room's snapshot follows and the agent's session
stays on this host (never in the room's frontmatter). An agent that died or
timed out after it said something: what it said lands, marked interrupted,
and the failure is raised after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_doc.cycle.acp_client import AcpReply
from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.acp_live import LiveAgent
from agent_doc.cycle.turn import PreparedTurn
from agent_doc.errors import AgentDocError
from agent_doc.errors import ServerTimeout
from agent_doc.share.room_link import RoomTarget
from agent_doc_lsp.features import served_save
from agent_doc_lsp.features.acp_host import EditorHost
from agent_doc_lsp.features.local_link import LocalLink
from agent_doc_lsp.features.share_sync import landed_in_room
from agent_doc_lsp.features.share_sync import landed_on_disk_in_room
from agent_doc_lsp.features.share_sync import shared_doc
from agent_doc_lsp.server import AgentDocLanguageServer

FINAL_ATTEMPTS = 3
"""Times the final answer is sent (each one up to ``writeTimeoutMs``)."""


async def answer_turn(
    ls: AgentDocLanguageServer,
    link: LocalLink,
    turn: PreparedTurn,
    acp_turn: AcpTurn,
    host: EditorHost,
    live: LiveAgent,
    full_prompt: Callable[[], str],
    room: RoomTarget | None = None,
) -> dict[str, Any]:
    """Run ``acp_turn`` with the streaming ``host`` and land its answer (see
    the module docstring); the command's result."""
    reply, failure = await ask_streaming(turn, acp_turn, host, live, full_prompt)
    target = await land_answer(ls, link, turn, acp_turn, host, reply, room)
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


async def ask_streaming(
    turn: PreparedTurn,
    acp_turn: AcpTurn,
    host: EditorHost,
    live: LiveAgent,
    full_prompt: Callable[[], str],
) -> tuple[AcpReply, AgentDocError | None]:
    """The agent's reply, streamed into the buffer while it comes; an agent
    that died or timed out after it said something: what it said (marked
    interrupted) and why it stopped."""
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
    return reply, failure


async def land_answer(
    ls: AgentDocLanguageServer,
    link: LocalLink,
    turn: PreparedTurn,
    acp_turn: AcpTurn,
    host: EditorHost,
    reply: AcpReply,
    room: RoomTarget | None,
) -> str:
    """Land the final answer (see the module docstring); where it went:
    ``server`` (the open buffer) or ``disk``."""
    from agent_doc.cycle.acp_run import final_answer

    answer = final_answer(reply, acp_turn.name)
    if host.stream is not None and ls.buffers.by_path(turn.path) is not None:
        await finish_in_buffer(turn.path, host, answer, reply.session_id, room)
        return "server"
    if host.stream is not None:  # the person closed the buffer mid-stream
        await asyncio.to_thread(closed_mid_stream, turn.path, host, answer, reply, room)
    else:
        await asyncio.to_thread(
            write_at_end, link, turn, answer, reply.session_id, room
        )
    return "disk"


async def finish_in_buffer(
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


def closed_mid_stream(
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


def write_at_end(
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
