"""Ask the agent: which agent answers a turn of ``run``, and what it answered.

The agent is the one named by ``--agent``, the document's ``agent``, or the
configured default. An agent configured with ``transport = "acp"`` (or
``"acp-ws"``) is driven over the Agent Client Protocol
(:mod:`agent_doc.cycle.acp_run`); any other runs once as a CLI.

A CLI agent that resumes its session gets the resumed prompt (the diff and
excerpts, :mod:`agent_doc.cycle.turn`). When it turns out the session was lost
— the agent says so, or answers from another session id — the turn is sent
once more with the whole document in a new session; the first, small prompt
is the only extra cost (the full prompt is never sent twice).

Nothing here writes the answer: that is the side's
(:meth:`~agent_doc.cycle.sides.DocumentSide.land`).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

from agent_doc._runtime.lazy import lazy_logger
from agent_doc.cycle import agents
from agent_doc.cycle.acp_run import run_acp_from_console
from agent_doc.cycle.agent_edits import bring_agent_edits_to_buffer
from agent_doc.cycle.agent_edits import file_text
from agent_doc.cycle.sides import AgentAnswer
from agent_doc.errors import AgentError
from agent_doc.store.config import resolve_claude_args
from agent_doc.write.waiting import elapsed_on_terminal

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.cycle.agents import AgentInvocation
    from agent_doc.cycle.agents import AgentReply
    from agent_doc.cycle.sides import DocumentSide
    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.store.config import AgentCommand
    from agent_doc.store.config import GlobalConfig

logger = lazy_logger(__name__)


@dataclass(frozen=True, slots=True)
class ChosenAgent:
    """The agent that answers a turn, and how it is reached."""

    name: str
    """Its name (a key of ``[agents]``, or a built-in backend)."""
    configured: AgentCommand | None
    """Its ``[agents.NAME]`` table, if any."""
    invocation_for: Callable[[str | None], AgentInvocation]
    """The CLI invocation resuming a session (``None``: a new one)."""
    resume: str | None
    """The session the turn resumes."""

    @property
    def acp(self) -> AgentCommand | None:
        """Its table when it speaks ACP (``None``: a CLI agent)."""
        speaks_acp = self.configured is not None and self.configured.speaks_acp
        return self.configured if speaks_acp else None

    def invocation(self) -> AgentInvocation:
        """How the turn starts it (an ACP agent: its command)."""
        if self.acp is not None:
            return agents.AgentInvocation(self.name, (self.acp.command,))
        return self.invocation_for(self.resume)


def choose_agent(
    turn: PreparedTurn, config: GlobalConfig, *, agent: str | None, model: str | None
) -> ChosenAgent:
    """The agent for ``turn``: ``agent``, else the document's, else the default."""
    name = agents.resolve_agent_name(agent, turn.front.agent, config)

    def invocation_for(resume: str | None) -> AgentInvocation:
        return agents.build_invocation(
            name,
            config,
            resume=resume,
            model=model or turn.front.model,
            claude_args=resolve_claude_args(turn.front.claude_args, config),
        )

    return ChosenAgent(name, config.agents.get(name), invocation_for, turn.front.resume)


def require_agent_installed(chosen: ChosenAgent, config: GlobalConfig) -> None:
    """Refuse (before any branch or status) an agent whose program is missing;
    an ``acp-ws`` agent has no program here."""
    if chosen.configured is None or chosen.configured.transport != "acp-ws":
        agents.require_installed(chosen.invocation(), config)


def ask_agent(
    chosen: ChosenAgent,
    turn: PreparedTurn,
    side: DocumentSide,
    *,
    timeout: float,
    progress: bool = False,
    full_prompt: Callable[[], str] | None = None,
) -> AgentAnswer:
    """Send ``turn`` to the agent and return its answer.

    ``full_prompt`` builds the whole-document prompt a lost session gets
    (default: the turn's; the cost guard checks it). ``progress`` shows the
    elapsed time on a terminal while a CLI agent works; an ACP agent shows its
    activity there. An ACP answer streams to the side while it comes
    (:meth:`~agent_doc.cycle.sides.DocumentSide.answer_stream`).
    """
    configured = chosen.acp
    if configured is not None:
        stream = side.answer_stream(turn)
        text, session_id, cancelled, sent, full_because = run_acp_from_console(
            turn,
            chosen.name,
            configured,
            link=side.link,
            timeout=timeout,
            stream=stream,
            full_prompt=full_prompt,
        )
        return AgentAnswer(text, session_id, sent, full_because, cancelled, stream)
    waiting = f"waiting for {chosen.name}"
    shown = elapsed_on_terminal(waiting, first_tick=0) if progress else nullcontext()
    before = file_text(turn.path) if side.link is not None else None
    with shown:
        reply, sent = send_turn(
            turn,
            chosen.invocation(),
            lambda: chosen.invocation_for(None),
            timeout=timeout,
            full_prompt=full_prompt,
        )
    bring_agent_edits_to_buffer(turn.path, before, side.link)
    lost = None if sent is turn.prompt else "lost"
    return AgentAnswer(reply.text, reply.session_id, sent, lost)


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
