"""The cost guard: a big prompt is sent only when the person agrees.

A first turn, a lost session or ``prompt = "full"`` sends the whole document
to a paid agent. Above ``prompt_limit_bytes`` (default 200 KB, about 50 k
tokens; 0 removes the limit) the turn stops before anything is sent and the
person is asked — on a terminal a ``[y/N]`` question, in an editor a message
request from the language server — or, with nobody to ask, the turn is refused
with one line naming ``--yes`` and ``compact``. Prompts under the limit (every
resumed turn of a normal conversation) pass without a word.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.cycle.prompt import prompt_size
from agent_doc.errors import AgentDocError
from agent_doc.store.conversation import load_conversation_settings
from agent_doc.store.state import project_root_for

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.cycle.turn import PreparedTurn

FIRST_TURN = "a first turn sends the whole document"
FULL_MODE = (
    'the whole document goes every turn with prompt = "full", '
    "or when no snapshot records what the agent saw"
)
LOST_SESSION = "the agent's session was lost, so a new one gets the whole document"


class PromptTooLarge(AgentDocError):
    """A prompt above the limit that nobody agreed to send."""

    def __init__(self, cost: PromptCost, *, declined: bool = False) -> None:
        self.cost = cost
        self.declined = declined
        if declined:
            message = f"not sent: {cost.describe()}; you declined"
        else:
            name = cost.path.name
            message = (
                f"not sent: {cost.describe()}; send it with 'agent-doc run {name} "
                f"--yes', or make the document smaller with 'agent-doc compact "
                f"{name}' "
                "(the limit is prompt_limit_bytes in config.toml; 0 removes it)"
            )
        super().__init__(message)


class PromptCost:
    """What a prompt would cost: its size, its estimated tokens and why."""

    __slots__ = ("path", "size", "tokens", "limit", "why")

    def __init__(self, path: Path, prompt: str, limit: int, why: str) -> None:
        self.path = path
        self.size, self.tokens = prompt_size(prompt)
        self.limit = limit
        self.why = why

    def describe(self) -> str:
        """``the prompt for notes.md is 1.2 MB (about 310 k tokens), above …``."""
        return (
            f"the prompt for {self.path.name} is {human_bytes(self.size)} "
            f"(about {human_count(self.tokens)} tokens), above the "
            f"{human_bytes(self.limit)} limit ({self.why})"
        )

    def as_json(self) -> dict[str, object]:
        """The JSON form an editor shows: bytes, tokens, limit, why."""
        return {
            "bytes": self.size,
            "tokens": self.tokens,
            "limit": self.limit,
            "why": self.why,
            "message": self.describe(),
        }


class CostGuard:
    """Checks each prompt of one turn against the limit before it is sent."""

    def __init__(
        self,
        path: Path,
        limit: int,
        *,
        approved: bool = False,
        ask: Callable[[PromptCost], bool] | None = None,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.limit = limit
        self.approved = approved
        """True once the person agreed (``--yes``, or an answer): no more asks."""
        self.ask = ask
        """Asks the person; None when nobody can be asked (the turn is refused)."""
        self.announce = announce
        """Says the size of a big prompt that is sent (stderr on the CLI)."""

    def check(self, prompt: str, why: str) -> str:
        """Return ``prompt`` when it may be sent; raise :class:`PromptTooLarge`
        when it is above the limit and the person did not (or cannot) agree."""
        size, _ = prompt_size(prompt)
        if self.limit <= 0 or size <= self.limit:
            return prompt
        cost = PromptCost(self.path, prompt, self.limit, why)
        if not self.approved:
            if self.ask is None:
                raise PromptTooLarge(cost)
            if not self.ask(cost):
                raise PromptTooLarge(cost, declined=True)
            self.approved = True
        if self.announce is not None:
            self.announce(
                f"agent-doc: sending {human_bytes(cost.size)} "
                f"(about {human_count(cost.tokens)} tokens): {cost.why}"
            )
        return prompt

    def check_turn(self, turn: PreparedTurn) -> None:
        """Check the prompt the turn sends first (raises as :meth:`check`)."""
        self.check(turn.prompt, why_full(turn))

    def full_prompt_of(self, turn: PreparedTurn) -> Callable[[], str]:
        """The turn's full prompt for a lost session, checked when it is built."""

        def full() -> str:
            return self.check(turn.full_prompt(), LOST_SESSION)

        return full


def cost_guard_for(
    path: Path,
    *,
    approved: bool = False,
    ask: Callable[[PromptCost], bool] | None = None,
    announce: Callable[[str], None] | None = None,
) -> CostGuard:
    """The guard of a turn on ``path``, with the project's (else the user's)
    ``prompt_limit_bytes``."""
    settings = load_conversation_settings(project_root_for(Path(path)))
    return CostGuard(
        path,
        settings.prompt_limit_bytes,
        approved=approved,
        ask=ask,
        announce=announce,
    )


def why_full(turn: PreparedTurn) -> str:
    """Why this turn's first prompt carries the whole document."""
    if turn.mode == "resumed":
        return "the diff and excerpts of a resumed session"
    if turn.front.resume is None:
        return FIRST_TURN
    return FULL_MODE


def human_bytes(size: int) -> str:
    """``812 B``, ``200 KB``, ``19.3 MB`` (decimal units, as file managers)."""
    if size < 1000:
        return f"{size} B"
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if size < scale * 1000 or unit == "GB":
            value = size / scale
            return f"{value:.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def human_count(count: int) -> str:
    """``950``, ``62 k``, ``4.8 M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.0f} k" if value >= 10 else f"{value:.1f} k"
    return f"{count / 1e6:.1f} M"
