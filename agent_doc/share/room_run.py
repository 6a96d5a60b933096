"""``agent-doc run --room``: an agent turn whose document is a shared room.

:class:`RoomTurn` is the :class:`~agent_doc.cycle.room_turn.RoomSide` the cycle
drives: it reads the room's text (:func:`~agent_doc.share.remote.read_room`,
before the agent is called), writes a CLI agent's answer as one transaction
(:func:`~agent_doc.share.remote.write_to_room` with the turn's text as the
baseline) and streams an ACP agent's answer (:class:`RoomStream`).

:class:`RoomStream` keeps one connection (and the "agent writing" presence)
for the whole ACP turn. Each chunk turns the room from what it showed of the
answer before to the answer so far (:class:`~agent_doc.write.stream.StreamedAnswer`:
the same ``content_ours`` steps as a stream into a live buffer), merged 3-way
with what the room holds now, so text people type meanwhile stays where they
typed it. An unfinished patch block waits for its closing marker. When the
connection drops mid-stream the next step joins again with the same Yjs
document: the room receives what it missed once (Yjs items keep their ids).
A turn that fails takes the streamed part out again; an interrupted one
keeps it, marked (the final answer).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_doc.cycle.room_turn import RoomSide
from agent_doc.cycle.sides import AnswerStream
from agent_doc.cycle.sides import RoomWrite
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.merge import merge_texts
from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.errors import ShareError
from agent_doc.share.remote import read_room
from agent_doc.share.remote import read_room_turn
from agent_doc.share.remote import write_to_room
from agent_doc.share.room_connect import TIMEOUT
from agent_doc.share.room_connect import room_failure
from agent_doc.share.room_connect import single_error
from agent_doc.share.room_lease import hold_room_turn
from agent_doc.share.room_link import RoomLink
from agent_doc.share.room_link import RoomTarget
from agent_doc.share.turn_state import answer_id
from agent_doc.share.turn_state import current_lease
from agent_doc.store.state import project_root_for
from agent_doc.write.stream import StreamedAnswer

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from types import TracebackType

    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.cycle.turn_lock import TurnRecord


class RoomTurn(RoomSide):
    """The room of one ``run --room`` turn."""

    def __init__(self, target: RoomTarget, file: Path) -> None:
        self.target = target
        self.file = Path(file)
        self.url = target.url
        self.claim: str | None = None
        """The claim id of the room's turn while this process holds it."""

    def read_text(self) -> str:
        """The room's current text; :class:`ShareError` when refused or unreachable."""
        return read_room(self.target)

    def read_turn(self) -> tuple[str, str | None]:
        """The room's text and snapshot (:func:`read_room_turn`)."""
        return read_room_turn(self.target)

    def hold_turn(
        self,
        command: str,
        wait_s: float = 0.0,
        on_wait: Callable[[TurnRecord], None] | None = None,
    ) -> AbstractContextManager[None]:
        """The room's turn for this process (:func:`hold_room_turn`); the
        answer written meanwhile lands only while the lease is still ours."""
        return self._holding(command, wait_s, on_wait)

    @contextmanager
    def _holding(
        self,
        command: str,
        wait_s: float,
        on_wait: Callable[[TurnRecord], None] | None,
    ) -> Iterator[None]:
        label = str(self.file)
        with hold_room_turn(
            self.target, label, command, wait_s=wait_s, on_wait=on_wait
        ) as claim:
            self.claim = claim
            try:
                yield
            finally:
                self.claim = None

    def write_answer(self, baseline: str, response: str) -> RoomWrite:
        """One transaction: ``response`` on ``baseline``, merged with the room."""
        outcome = write_to_room(
            self.target, self.file, response, baseline, holder=self.claim
        )
        assert outcome.ours is not None  # a write always reports it
        return RoomWrite(outcome.ours, outcome.after)

    def stream(self, turn: PreparedTurn) -> AnswerStream:
        """Stream ``turn``'s answer into the room."""
        configs = load_component_configs(project_root_for(self.file))
        answer = StreamedAnswer(turn.text, configs)
        return RoomStream(self.target, answer, holder=self.claim)


class RoomStream(AnswerStream):
    """An ACP answer streaming into a room (see the module docstring).

    The connection is held by a task of its own: a connection that fails
    mid-turn ends that task (noted in :attr:`broken`), never the turn.
    """

    def __init__(
        self, target: RoomTarget, answer: StreamedAnswer, holder: str | None = None
    ) -> None:
        self.target = target
        self.answer = answer
        self.holder = holder
        """The claim whose lease every step checks (``None``: no check)."""
        self.taken_back: ShareError | None = None
        """Set once a step found the lease no longer ours: nothing more is
        streamed, and :meth:`finish` refuses."""
        self.link: RoomLink | None = None
        self.written: RoomWrite | None = None
        self.broken: BaseException | None = None
        """Why the connection failed mid-stream (joined again on the next step)."""
        self._doc: Any = None
        self._holder: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._steps = asyncio.Lock()
        """One step at a time (chunks may arrive while a step joins again)."""
        self._latest: str | None = None
        """The newest answer so far not yet written."""

    async def __aenter__(self) -> RoomStream:
        """Join the room, saying "agent writing"."""
        await self._join()
        return self

    async def _join(self) -> RoomLink:
        await self._leave()
        link = RoomLink(self.target, doc=_copy(self._doc))
        joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._holder = asyncio.create_task(self._hold(link, joined, self._stop))
        try:
            await joined
        except Exception as exc:
            raise room_failure(exc, self.target.url) from None
        self.link, self._doc, self.broken = link, link.doc, None
        return link

    async def _hold(
        self, link: RoomLink, joined: asyncio.Future[None], stop: asyncio.Event
    ) -> None:
        """Keep ``link`` open until ``stop`` (or until the connection fails)."""
        try:
            async with link:
                joined.set_result(None)
                await stop.wait()
        except BaseException as exc:  # noted here, never raised into the turn
            if not joined.done():
                joined.set_exception(exc)
            elif not stop.is_set():
                self.broken = exc

    async def _leave(self) -> None:
        """Leave the room (presence cleared first), bounded."""
        holder, self._holder, self.link = self._holder, None, None
        if holder is not None:
            self._stop.set()
            try:
                await asyncio.wait_for(holder, TIMEOUT)
            except (Exception, asyncio.CancelledError) as exc:
                _warn(f"left {self.target.url} uncleanly: {_why(exc)}")

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Take an unfinished answer out again (the turn failed), then leave."""
        try:
            if self.written is None and self.answer.shown != self.answer.baseline:
                async with self._steps:
                    await self._step(self.answer.baseline, settle=True)
        except Exception as failure:  # the turn's own error is the one to report
            _warn(f"could not take the failed answer out of the room: {failure}")
        finally:
            await self._leave()

    def current_text(self) -> str:
        """The room's text as this writer holds it now."""
        if self.link is not None:
            return self.link.current()
        if self._doc is None:
            return self.answer.baseline
        from pycrdt import Text

        return str(self._doc.get(TEXT_KEY, type=Text))

    async def show(self, answer: str) -> None:
        """Write the answer so far (a failure is retried by the next step).

        Chunks that come while a step is under way are written together by
        that step, once it is done.
        """
        self._latest = answer
        if self._steps.locked() or self.taken_back is not None:
            return
        async with self._steps:
            while self._latest is not None:
                target = self.answer.target(self._latest)
                self._latest = None
                if target == self.answer.shown:
                    continue
                try:
                    await self._step(target, settle=False)
                except TurnTakenBack:
                    return  # the turn is another's: nothing more is streamed
                except Exception as exc:  # e.g. the server is down: next step retries
                    if self.broken is None:
                        _warn(f"cannot reach {self.target.url} ({_why(exc)}); retrying")
                    self.broken = exc

    async def finish(self, answer: str) -> RoomWrite:
        """Write the final answer and wait until the room applied it (joining
        again once when the connection fails on the way)."""
        target = self.answer.target(answer, final=True)
        landing = (target, answer_id(self.answer.baseline, answer))
        async with self._steps:
            if self.taken_back is not None:
                raise self.taken_back
            try:
                room_text = await self._step(target, settle=True, landing=landing)
            except TurnTakenBack:
                raise
            except Exception:
                try:
                    await self._join()
                    room_text = await self._step(target, settle=True, landing=landing)
                except TurnTakenBack:
                    raise
                except Exception as exc:
                    raise room_failure(exc, self.target.url) from None
        self.written = RoomWrite(target, room_text)
        return self.written

    async def _step(
        self,
        target: str,
        *,
        settle: bool,
        landing: tuple[str, str | None] | None = None,
    ) -> str:
        """Bring the room from the shown answer to ``target``; its text after
        (``landing``: the final answer's snapshot and id, in the same
        transaction). A step towards the answer is written only while the
        room's lease is still :attr:`holder`'s (else :class:`TurnTakenBack`);
        taking the streamed part out again (towards the baseline) always is."""
        link = self.link
        if link is None or self.broken is not None:
            if link is not None and self.broken is not None:
                _warn(f"lost {self.target.url} ({_why(self.broken)}); joining again")
            link = await self._join()
        if target != self.answer.baseline:
            self._check_lease(link)
        current = link.current()
        merged = merge_texts(self.answer.shown, target, current).text
        sent = link.updates_sent
        edits = link.change_to(merged, landing)
        self.answer.landed(target)
        if settle:
            await link.settled(sent if edits or landing else None)
        return link.current()

    def _check_lease(self, link: RoomLink) -> None:
        """Raise :class:`TurnTakenBack` when the room's lease is not
        :attr:`holder`'s any more."""
        if self.holder is None:
            return
        lease = current_lease(link.doc)
        if lease is not None and lease.id == self.holder:
            return
        now = f"; {lease.host} pid {lease.pid} holds it now" if lease else ""
        self.taken_back = TurnTakenBack(
            f"{self.target.url}: this run's turn was taken back (no renewal "
            f"within its lease{now}), its answer is not written"
        )
        raise self.taken_back


class TurnTakenBack(ShareError):
    """The room's lease went to another claim while this turn answered."""


def _copy(doc: Any) -> Any:
    """A new Yjs document holding ``doc``'s state under its client id (``None``:
    a new writer). An earlier connection's provider never touches the copy."""
    if doc is None:
        return None
    from pycrdt import Doc

    copy: Doc[Any] = Doc(client_id=doc.client_id)
    copy.apply_update(doc.get_update())
    return copy


def _why(exc: BaseException) -> str:
    """A short reason: the one exception inside, its message if it is short."""
    exc = single_error(exc)
    reason = str(exc).strip()
    short = reason and "\n" not in reason and len(reason) <= 80
    return f"{type(exc).__name__}: {reason}" if short else type(exc).__name__


def _warn(message: str) -> None:
    sys.stderr.write(f"agent-doc: {message}\n")
