"""``run``: one full agent cycle on a session document (spec §7.1).

diff → prompt (``<document>``, plus ``<diff>`` after the first cycle, plus the
effective AGENTS.md) → optional ``agent-doc/<stem>`` branch → the agent → the
session id kept as ``resume`` → the response written through the one write path
(so an open editor receives it as a workspace edit) → snapshot → git commit.
With ``--room`` the text comes from a shared room and the answer goes into it
(:mod:`agent_doc.cycle.room_turn`): the diff is taken from the room's
snapshot, the agent's session is this host's own, and the local copy and
snapshot follow the room.

A CLI agent that resumes its session gets the resumed prompt (the diff and
excerpts, :mod:`agent_doc.cycle.turn`). When it turns out the session was lost
— the agent says so, or answers from another session id — the turn is sent
once more with the whole document in a new session; the first, small prompt
is the only extra cost (the full prompt is never sent twice).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from agent_doc._runtime.lazy import lazy_logger
from agent_doc.cycle import agents
from agent_doc.cycle.acp_run import run_acp_from_console
from agent_doc.cycle.agent_edits import bring_agent_edits_to_buffer
from agent_doc.cycle.agent_edits import file_text
from agent_doc.cycle.commit import commit_and_refresh
from agent_doc.cycle.preconditions import require_git_ready
from agent_doc.cycle.preconditions import require_runnable_document
from agent_doc.cycle.room_turn import keep_host_session
from agent_doc.cycle.room_turn import land_in_room
from agent_doc.cycle.room_turn import prepare_room_turn
from agent_doc.cycle.turn import build_prompt
from agent_doc.cycle.turn import prepare_turn
from agent_doc.cycle.turn import with_resume
from agent_doc.cycle.vcs import create_branch
from agent_doc.cycle.vcs import open_repo
from agent_doc.errors import AgentError
from agent_doc.store.config import load_global_config
from agent_doc.store.config import resolve_claude_args
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from agent_doc.write.waiting import elapsed_on_terminal

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.cycle.agents import AgentInvocation
    from agent_doc.cycle.agents import AgentReply
    from agent_doc.cycle.cancel import TurnCancelled
    from agent_doc.cycle.cost_guard import CostGuard
    from agent_doc.cycle.room_turn import RoomSide
    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.write.pipeline import WriteOutcome
    from agent_doc.write.server_link import ServerLink

__all__ = ["RunOutcome", "build_prompt", "run_cycle"]

logger = lazy_logger(__name__)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What one ``run`` did."""

    prompt: str
    """The prompt sent (or, with ``--dry-run``, that would be sent)."""
    prompt_mode: str = "full"
    """``full`` or ``resumed`` (see :mod:`agent_doc.cycle.turn`)."""
    resent_full: bool = False
    """True when the whole document went in place of the resumed prompt."""
    full_because: str | None = None
    """Why (with ``resent_full``): ``lost`` (the session could not be resumed)
    or ``no-load`` (an ACP agent that cannot load sessions: every turn)."""
    agent: str | None = None
    """The backend used."""
    session_id: str | None = None
    """The agent's conversation id stored as ``resume``."""
    write: WriteOutcome | None = None
    """The write of the response (None for a dry run or no changes)."""
    committed: bool = False
    """True when the cycle was committed to git."""
    branch: str | None = None
    """The ``agent-doc/<stem>`` branch switched to with ``-b``."""
    no_changes: bool = False
    """True when nothing changed since the last response (nothing sent)."""
    cancelled: TurnCancelled | None = None
    """Set when a signal cancelled an ACP turn whose partial answer was written."""
    room: str | None = None
    """The shared room the answer was written into (``run --room``)."""


def run_cycle(
    path: Path,
    *,
    agent: str | None = None,
    model: str | None = None,
    branch: bool = False,
    dry_run: bool = False,
    no_git: bool = False,
    link: ServerLink | None = None,
    timeout: float | None = None,
    progress: bool = False,
    room: RoomSide | None = None,
    guard: CostGuard | None = None,
) -> RunOutcome:
    """Run one agent cycle on ``path`` and return what happened.

    The checks of :mod:`agent_doc.cycle.preconditions` run before the agent is
    called; ``progress`` shows the elapsed time on a terminal while it works.

    An agent configured with ``transport = "acp"`` (or ``"acp-ws"``) is driven
    over the Agent Client Protocol (:mod:`agent_doc.cycle.acp_run`); others
    run once as a CLI.

    With ``room`` the document's text is read from a shared room (before the
    agent is called) and the answer written there, streamed for an ACP agent;
    the local copy and snapshot follow (:mod:`agent_doc.cycle.room_turn`).

    ``guard`` checks each prompt's size before it is sent (the first one
    before any branch is made; a lost session's full prompt when it is built):
    above the limit the person is asked, or the turn refused with nothing sent
    (:mod:`agent_doc.cycle.cost_guard`).
    """
    path = Path(path)
    require_runnable_document(path)
    config = load_global_config()

    if room is not None:
        link = None  # the room is the document: no local editor is involved
        turn = prepare_room_turn(path, room, follow=not dry_run)
    else:
        turn = prepare_turn(path, link)
    if turn is None:
        return RunOutcome(prompt="", no_changes=True)
    if dry_run:
        return RunOutcome(prompt=turn.prompt, prompt_mode=turn.mode)
    name = agents.resolve_agent_name(agent, turn.front.agent, config)
    configured = config.agents.get(name)
    acp = configured is not None and configured.speaks_acp
    if acp and configured is not None:
        invocation = agents.AgentInvocation(name, (configured.command,))
    else:

        def invocation_for(resume: str | None) -> AgentInvocation:
            return agents.build_invocation(
                name,
                config,
                resume=resume,
                model=model or turn.front.model,
                claude_args=resolve_claude_args(turn.front.claude_args, config),
            )

        invocation = invocation_for(turn.front.resume)
    if configured is None or configured.transport != "acp-ws":  # no program
        agents.require_installed(invocation, config)  # before any branch or status
    if branch or not no_git:
        require_git_ready(path, branch=branch)
    if guard is not None:
        guard.check_turn(turn)  # before a branch, a status or the agent
    full_prompt = guard.full_prompt_of(turn) if guard is not None else None
    branch_name = create_branch(open_repo(path), path) if branch else None
    timeout = timeout or agents.DEFAULT_TIMEOUT_S
    session_id: str | None
    cancelled = None
    sent = turn.prompt
    full_because = None
    stream = room.stream(turn) if room is not None and acp else None
    if acp and configured is not None:
        response, session_id, cancelled, sent, full_because = run_acp_from_console(
            turn,
            name,
            configured,
            link=link,
            timeout=timeout,
            stream=stream,
            full_prompt=full_prompt,
        )
    else:
        waiting = f"waiting for {name}"
        shown = (
            elapsed_on_terminal(waiting, first_tick=0) if progress else nullcontext()
        )
        before = file_text(path) if link is not None else None
        with shown:
            reply, sent = send_turn(
                turn,
                invocation,
                lambda: invocation_for(None),
                timeout=timeout,
                full_prompt=full_prompt,
            )
        response, session_id = reply.text, reply.session_id
        bring_agent_edits_to_buffer(path, before, link)
        full_because = None if sent is turn.prompt else "lost"
    if room is None:
        response = with_resume(response, session_id, turn.front)
        request = WriteRequest(path, response, baseline=turn.text, origin="run")
        outcome = write_response(request, link)
    else:  # the session is this host's: never in the room's frontmatter
        keep_host_session(path, session_id)
        outcome = land_in_room(room, turn, response, stream)
    committed = False
    if not no_git:
        committed, _ = commit_and_refresh(path, link)
    return RunOutcome(
        prompt=sent,
        prompt_mode=turn.mode,
        resent_full=sent is not turn.prompt,
        full_because=full_because,
        agent=name,
        session_id=session_id,
        write=outcome,
        committed=committed,
        branch=branch_name,
        cancelled=cancelled,
        room=room.url if room is not None else None,
    )


def send_turn(
    turn: PreparedTurn,
    invocation: AgentInvocation,
    fresh: Callable[[], AgentInvocation],
    *,
    timeout: float,
    full_prompt: Callable[[], str] | None = None,
) -> tuple[AgentReply, str]:
    """Send the turn's prompt; return the reply and the prompt it answered.

    A resumed prompt whose session was lost (the agent's error says so, or it
    answers from another session) is sent once more in full, through
    ``fresh()`` (the invocation that starts a new session); ``full_prompt``
    builds that prompt (default: the turn's; the cost guard checks it).
    """
    try:
        reply = agents.send(invocation, turn.prompt, cwd=turn.root, timeout=timeout)
    except AgentError as exc:
        if turn.mode != "resumed" or not agents.lost_session(str(exc)):
            raise
        why = f"could not resume session {turn.front.resume} ({exc})"
    else:
        if turn.mode != "resumed" or reply.session_id in (None, turn.front.resume):
            return reply, turn.prompt
        why = f"answered from session {reply.session_id}, not {turn.front.resume}"
    logger.warning(
        "agent-doc: the agent %s; sending the whole document in a new session", why
    )
    full = (full_prompt or turn.full_prompt)()
    return agents.send(fresh(), full, cwd=turn.root, timeout=timeout), full
