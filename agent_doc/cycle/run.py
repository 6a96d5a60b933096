"""``run``: one full agent cycle on a session document (spec §7.1).

A turn reads top to bottom, the same wherever the document lives:

1. the side (:mod:`agent_doc.cycle.sides`: this host's file, or a shared room,
   :class:`~agent_doc.cycle.room_turn.RoomSide`) prepares the turn: diff →
   prompt (``<document>``, plus ``<diff>`` after the first cycle, plus the
   effective AGENTS.md);
2. the checks that make a failed turn cost nothing (the agent installed, git
   ready, the prompt's size agreed), then the optional ``agent-doc/<stem>``
   branch;
3. ask the agent (:mod:`agent_doc.cycle.ask`: a CLI agent once, an ACP agent
   over the protocol; a lost session gets the whole document once more);
4. the side lands the answer: locally the response and its ``resume`` through
   the one write path (so an open editor receives it as a workspace edit); in
   a room the answer goes into the room, the session stays this host's, and
   the local copy and snapshot follow the room;
5. the git commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_doc.cycle import agents
from agent_doc.cycle.ask import ask_agent
from agent_doc.cycle.ask import choose_agent
from agent_doc.cycle.ask import require_agent_installed
from agent_doc.cycle.commit import commit_and_refresh
from agent_doc.cycle.preconditions import require_git_ready
from agent_doc.cycle.preconditions import require_runnable_document
from agent_doc.cycle.sides import LocalSide
from agent_doc.cycle.turn import build_prompt
from agent_doc.cycle.vcs import create_branch
from agent_doc.cycle.vcs import open_repo
from agent_doc.store.config import load_global_config

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.cycle.cancel import TurnCancelled
    from agent_doc.cycle.cost_guard import CostGuard
    from agent_doc.cycle.room_turn import RoomSide
    from agent_doc.cycle.sides import DocumentSide
    from agent_doc.write.pipeline import WriteOutcome
    from agent_doc.write.server_link import ServerLink

__all__ = ["RunOutcome", "build_prompt", "run_cycle"]


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
    side: DocumentSide = room if room is not None else LocalSide(link)
    turn = side.prepare(path, follow=not dry_run)
    if turn is None:
        return RunOutcome(prompt="", no_changes=True)
    if dry_run:
        return RunOutcome(prompt=turn.prompt, prompt_mode=turn.mode)
    chosen = choose_agent(turn, config, agent=agent, model=model)
    require_agent_installed(chosen, config)  # before any branch or status
    if branch or not no_git:
        require_git_ready(path, branch=branch)
    if guard is not None:
        guard.check_turn(turn)  # before a branch, a status or the agent
    branch_name = create_branch(open_repo(path), path) if branch else None
    answer = ask_agent(
        chosen,
        turn,
        side,
        timeout=timeout or agents.DEFAULT_TIMEOUT_S,
        progress=progress,
        full_prompt=guard.full_prompt_of(turn) if guard is not None else None,
    )
    outcome = side.land(turn, answer)
    committed = False if no_git else commit_and_refresh(path, side.link)[0]
    return RunOutcome(
        prompt=answer.sent,
        prompt_mode=turn.mode,
        resent_full=answer.sent is not turn.prompt,
        full_because=answer.full_because,
        agent=chosen.name,
        session_id=answer.session_id,
        write=outcome,
        committed=committed,
        branch=branch_name,
        cancelled=answer.cancelled,
        room=side.shared_url(),
    )
