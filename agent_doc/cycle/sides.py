"""Where a turn's document lives: its text read before, its answer landed after.

A turn of ``run`` reads the same way and lands the same way wherever its
document lives; only the side differs (:class:`DocumentSide`):

- :class:`LocalSide` — this host's file, through the one write path (an
  editor that has the file open receives the answer as a workspace edit);
  the agent's session id is kept in the frontmatter as ``resume``;
- :class:`~agent_doc.cycle.room_turn.RoomSide` — a shared room
  (``run --room``): the text is the room's, the answer goes into the room
  (streamed, for an ACP agent), the session id stays on this host.
"""

from __future__ import annotations

from agent_doc.cycle.turn import prepare_turn
from agent_doc.cycle.turn import with_resume
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from agent_doc.cycle.ask import AgentAnswer
    from agent_doc.cycle.room_turn import AnswerStream
    from agent_doc.cycle.turn import PreparedTurn
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
