"""Where a turn's document lives: its text read before, its answer landed after.

A turn of ``run`` reads the same way and lands the same way wherever its
document lives; only the side differs (:class:`DocumentSide`):

- :class:`LocalSide` — this host's file, through the one write path (an
  editor that has the file open receives the answer as a workspace edit);
  the agent's session id is kept in the frontmatter as ``resume``;
- :class:`~agent_doc.cycle.room_turn.RoomSide` — a shared room
  (``run --room``): the text is the room's, the answer goes into the room
  (streamed, for an ACP agent), the session id stays on this host.

What a side is handed and hands back: the agent's :class:`AgentAnswer`, and
for a room the :class:`AnswerStream` an ACP answer streams into and the
:class:`RoomWrite` it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_doc.cycle.turn import prepare_turn
from agent_doc.cycle.turn import with_resume
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

    from agent_doc.cycle.cancel import TurnCancelled
    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.errors import ShareError
    from agent_doc.write.outcome import WriteOutcome
    from agent_doc.write.server_link import ServerLink


class DocumentSide:
    """Where a turn's document lives (one implementation per place)."""

    link: ServerLink | None = None
    """The language servers that may have the document open (``None``: no
    editor is involved, as for a room, whose text is the document)."""

    def shared_url(self) -> str | None:
        """The room's URL when the document is shared (``None``: local)."""
        return None

    def prepare(self, path: Path, *, follow: bool) -> PreparedTurn | None:
        """The turn on the document's current text (``None``: nothing changed).

        ``follow`` false (a dry run): the same prompt, nothing of this host
        written."""
        raise NotImplementedError

    def answer_stream(self, turn: PreparedTurn) -> AnswerStream | None:
        """Where an ACP agent's answer streams while it comes (``None``: it
        is written once, at the end)."""
        raise NotImplementedError

    def land(self, turn: PreparedTurn, answer: AgentAnswer) -> WriteOutcome:
        """Write the agent's answer where the document lives."""
        raise NotImplementedError


class LocalSide(DocumentSide):
    """The document is this host's file (and any editor that has it open)."""

    def __init__(self, link: ServerLink | None) -> None:
        self.link = link

    def prepare(self, path: Path, *, follow: bool) -> PreparedTurn | None:  # noqa: ARG002
        """The file's (or the open buffer's) text, diffed against its snapshot
        (a dry run writes nothing here either way)."""
        return prepare_turn(path, self.link)

    def answer_stream(self, turn: PreparedTurn) -> AnswerStream | None:  # noqa: ARG002
        """None: a local answer is written once, at the end."""
        return None

    def land(self, turn: PreparedTurn, answer: AgentAnswer) -> WriteOutcome:
        """The answer and its ``resume`` patch through the one write path."""
        response = with_resume(answer.text, answer.session_id, turn.front)
        request = WriteRequest(turn.path, response, baseline=turn.text, origin="run")
        return write_response(request, self.link)


class RoomWrite:
    """What writing an answer into the room left (plain pair of texts)."""

    __slots__ = ("content_ours", "room_text")

    def __init__(self, content_ours: str, room_text: str) -> None:
        self.content_ours = content_ours
        """The text the turn started from with the answer applied."""
        self.room_text = room_text
        """The room's text once it applied the answer (with others' edits)."""


class AnswerStream:
    """An answer streaming into the room while an ACP agent produces it.

    ``async with`` holds the connection (and the "agent writing" presence) for
    the whole turn; :meth:`show` writes the answer so far, :meth:`finish` the
    final answer. Leaving without :meth:`finish` (the turn failed) takes the
    streamed part out of the room again.
    """

    written: RoomWrite | None = None
    """Set by :meth:`finish`."""
    failure: ShareError | None = None
    """Why :meth:`finish` could not write the final answer (set by the caller)."""

    async def __aenter__(self) -> AnswerStream:
        """Join the room; refuse (``ShareError``) when it cannot be reached."""
        raise NotImplementedError

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Leave the room (presence cleared)."""
        raise NotImplementedError

    def current_text(self) -> str:
        """The room's text as this writer holds it now (for the agent's
        ``fs/read_text_file`` of the document: not the stale local copy)."""
        raise NotImplementedError

    async def show(self, answer: str) -> None:
        """Write the answer received so far (never raises: a failed step is
        retried by the next one, or by :meth:`finish`)."""
        raise NotImplementedError

    async def finish(self, answer: str) -> RoomWrite:
        """Write the final answer and wait until the room applied it."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class AgentAnswer:
    """What the agent answered to one turn (not written anywhere yet)."""

    text: str
    """The answer (marked when an ACP turn was interrupted)."""
    session_id: str | None
    """The agent's conversation id (kept as ``resume``)."""
    sent: str
    """The prompt it answered (the full form when its session was lost)."""
    full_because: str | None = None
    """Why the full form went: ``lost`` or ``no-load`` (see ``RunOutcome``)."""
    cancelled: TurnCancelled | None = None
    """Set when a signal cancelled an ACP turn (its partial answer is here)."""
    stream: AnswerStream | None = None
    """Where the answer streamed while it came (a room), if anywhere."""
