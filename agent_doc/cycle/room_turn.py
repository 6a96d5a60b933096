"""A turn whose document lives in a shared room (``agent-doc run --room``).

The cycle does not know how a room is reached (that is
:mod:`agent_doc.share.room_run`, a layer above); it drives a :class:`RoomSide`:

1. :meth:`RoomSide.read_text` — the room's current text, read before the agent
   is called (a refused or unreachable room stops the turn there, and nothing
   is sent to the agent or changed locally);
2. the prompt is built from that text and diffed against the agent host's own
   snapshot, exactly as a local turn;
3. the answer goes into the room: a CLI agent's in one transaction
   (:meth:`RoomSide.write_answer`), an ACP agent's as it streams
   (:meth:`RoomSide.stream`), 3-way against the text the turn started from, so
   what people typed meanwhile stays;
4. :func:`settle_locally` — the agent host's copy of the document becomes the
   room's text after the answer and its snapshot the answer's
   ``content_ours`` (never the merged text: the people's concurrent edits are
   in the next turn's diff), as a local write leaves them.
"""

from __future__ import annotations

import time
from pathlib import Path

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc.cycle.sides import DocumentSide
from agent_doc.cycle.sides import RoomWrite
from agent_doc.cycle.turn import prepare_turn
from agent_doc.errors import ShareError
from agent_doc.store.atomic import atomic_write_text
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_hash
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.outcome import WriteOutcome
from agent_doc.write.stream import finish_stream

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from agent_doc.cycle.sides import AgentAnswer
    from agent_doc.cycle.sides import AnswerStream
    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.cycle.turn_lock import TurnRecord

declare_points(
    {
        "room.run.after_agent": "the agent answered; nothing written anywhere",
        "room.run.after_room": "the answer, its snapshot and id are in the room; "
        "the host's copy and snapshot not moved yet",
        "room.run.after_settle": "the host's copy and snapshot follow the room; "
        "not committed",
    }
)


class RoomSide(DocumentSide):
    """How a turn reaches its room (implemented in :mod:`agent_doc.share`).

    The room is one side a turn's document can live on
    (:class:`~agent_doc.cycle.sides.DocumentSide`): :meth:`prepare` and
    :meth:`land` are the turn's steps on top of the room's own operations
    (:meth:`read_turn`, :meth:`write_answer`, :meth:`stream`), which the share
    package implements.
    """

    url: str = ""
    """The room's URL (for messages)."""

    def shared_url(self) -> str | None:
        """The room's URL."""
        return self.url

    def prepare(self, path: Path, *, follow: bool) -> PreparedTurn | None:
        """The turn on the room's text (:func:`prepare_room_turn`)."""
        return prepare_room_turn(path, self, follow=follow)

    def answer_stream(self, turn: PreparedTurn) -> AnswerStream | None:
        """An ACP agent's answer streams into the room (:meth:`stream`)."""
        return self.stream(turn)

    def land(self, turn: PreparedTurn, answer: AgentAnswer) -> WriteOutcome:
        """The answer into the room (unless it streamed there), the host's
        copy after it (:func:`land_in_room`); the session id stays on this
        host, never in the room's frontmatter."""
        keep_host_session(turn.path, answer.session_id)
        return land_in_room(self, turn, answer.text, answer.stream)

    def read_text(self) -> str:
        """The document's current text in the room (``ShareError`` if refused)."""
        raise NotImplementedError

    def read_turn(self) -> tuple[str, str | None]:
        """The room's text and its snapshot (what the agent has seen, from any
        host; ``None`` before the first answer)."""
        raise NotImplementedError

    def hold_turn(
        self,
        command: str,
        wait_s: float = 0.0,
        on_wait: Callable[[TurnRecord], None] | None = None,
    ) -> AbstractContextManager[None]:
        """Hold the room's turn (one turn per room, every host and editor):
        :class:`~agent_doc.errors.TurnRunning` as a local second turn gets,
        or waiting up to ``wait_s`` seconds."""
        raise NotImplementedError

    def write_answer(self, baseline: str, response: str) -> RoomWrite:
        """Write a whole answer (generated against ``baseline``) into the room."""
        raise NotImplementedError

    def stream(self, turn: PreparedTurn) -> AnswerStream:
        """An :class:`AnswerStream` for ``turn``'s answer."""
        raise NotImplementedError


def settle_locally(path: Path, written: RoomWrite) -> WriteOutcome:
    """Bring the agent host's copy of ``path`` up to the room after an answer.

    The file becomes the room's text (atomically, under the document lock);
    the snapshot and CRDT state the answer's ``content_ours``.
    """
    store = StateStore.for_document(path)
    final = written.room_text
    with doc_lock(path, root=store.root):
        current = read_document(path)
        changed = current.text != final
        if changed:
            write_document(path, current, final)
    finish_stream(path, written.content_ours)
    return WriteOutcome(
        path=Path(path),
        content_ours=written.content_ours,
        final_text=final,
        target="room",
        changed=changed,
        merged=final != written.content_ours,
    )


def prepare_room_turn(
    path: Path, room: RoomSide, *, follow: bool = True
) -> PreparedTurn | None:
    """The turn on the room's text, diffed against the room's snapshot (the
    host's follows it), with this host's own agent session; ``None`` when
    nothing changed (the host's copy then follows the room too). With
    ``follow`` false (a dry run) the same prompt, and nothing of the host is
    written."""
    text, seen = room.read_turn()
    if seen is not None and follow:  # what the agent has seen, from any host
        follow_room(path, seen)
    turn = prepare_turn(path, None, text, resume=host_session(path), snapshot=seen)
    if turn is None and seen is not None and follow:
        settle_locally(path, RoomWrite(seen, text))
    return turn


def land_in_room(
    room: RoomSide, turn: PreparedTurn, response: str, stream: AnswerStream | None
) -> WriteOutcome:
    """Write the answer into the room (unless it streamed there), then bring
    the host's copy and snapshot up to it; an answer the room cannot take is
    kept (:func:`keep_unwritten`)."""
    crash_point("room.run.after_agent")
    try:
        if stream is not None and stream.failure is not None:
            raise stream.failure
        written = stream.written if stream is not None else None
        written = written or room.write_answer(turn.text, response)
    except ShareError as exc:  # the agent's answer is not lost with the room
        raise keep_unwritten(
            turn.path, turn.text, response, exc, streamed=stream is not None
        ) from None
    crash_point("room.run.after_room")
    outcome = settle_locally(turn.path, written)
    crash_point("room.run.after_settle")
    return outcome


def follow_room(path: Path, snapshot: str) -> None:
    """The host's snapshot of ``path`` becomes the room's (atomically): a
    local diff is then taken from what the agent has seen, on any host."""
    store = StateStore.for_document(path)
    if store.load_snapshot(path) != snapshot:
        store.save_snapshot(path, snapshot)


SESSIONS_DIR = "room-sessions"
"""Folder of ``.agent-doc/`` keeping this host's agent session per shared
document: a session belongs to the host whose agent holds it, never to the
room's frontmatter (another host's agent never had it)."""


def host_session(path: Path) -> str | None:
    """This host's agent session id for the shared document ``path``."""
    store = StateStore.for_document(path)
    try:
        found = (store.state_dir / SESSIONS_DIR / f"{doc_hash(path)}.txt").read_text(
            encoding="utf-8"
        )
    except OSError:
        return None
    return found.strip() or None


def keep_host_session(path: Path, session_id: str | None) -> None:
    """Keep ``session_id`` as this host's session for ``path`` (atomically)."""
    if not session_id or session_id == host_session(path):
        return
    store = StateStore.for_document(path)
    atomic_write_text(
        store.state_dir / SESSIONS_DIR / f"{doc_hash(path)}.txt", session_id + "\n"
    )


UNWRITTEN_DIR = "room-answers"
"""Folder of ``.agent-doc/`` keeping answers a room could not take."""


def keep_unwritten(
    path: Path, baseline: str, response: str, why: ShareError, *, streamed: bool
) -> ShareError:
    """Keep an answer the room could not take; the error saying where it is.

    The answer and the text it was generated against are written (atomically)
    to ``.agent-doc/room-answers/``, so ``agent-doc write --room`` can land
    it later without paying the agent again.
    """
    folder = StateStore.for_document(path).state_dir / UNWRITTEN_DIR
    stamp = time.strftime("%Y%m%dT%H%M%S")
    answer = folder / f"{Path(path).stem}-{stamp}.answer.md"
    base = folder / f"{Path(path).stem}-{stamp}.baseline.md"
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(base, baseline)
    atomic_write_text(answer, response)
    part = " (the room may hold part of it, streamed)" if streamed else ""
    return ShareError(
        f"{why}; the answer is kept in {answer}{part}: land it with "
        f"agent-doc write {path} --room URL --baseline-file {base} < {answer}"
    )
