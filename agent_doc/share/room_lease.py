"""A host's hold of a room's turn while it answers (``run --room``).

:func:`hold_room_turn` joins the room on a thread of its own, adds this
process's claim (:mod:`agent_doc.share.turn_state`) and waits for the
server's decision (:mod:`agent_doc.share.lease_arbiter`): granted, the claim
beats every quarter of the lease's ttl until the turn ends, then is deleted;
held by another, the turn is refused with the message a second local ``run``
gets (:class:`~agent_doc.errors.TurnRunning`: who holds it, ``use --wait to
queue``), or with ``--wait`` the claim waits in the server's queue. A holder
that cannot beat loses the turn after the ttl, as a dead one does (a
connection lost while holding is not joined again: the turn goes on, and its
lease ends a ttl later).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent_doc.cycle.turn_lock import WAIT_HINT
from agent_doc.cycle.turn_lock import TurnRecord
from agent_doc.cycle.turn_lock import turn_refusal
from agent_doc.errors import ShareError
from agent_doc.errors import TurnRunning
from agent_doc.share.room_connect import room_failure
from agent_doc.share.room_link import RoomLink
from agent_doc.share.room_link import RoomTarget
from agent_doc.share.turn_state import Claim
from agent_doc.share.turn_state import claims_map
from agent_doc.share.turn_state import current_lease

logger = logging.getLogger(__name__)

DECISION_S = 10.0
"""Seconds the server has to decide on a claim (an older ``serve`` never does)."""


def record_of(claim: Claim) -> TurnRecord:
    """The holder of a room's turn as the local turn lock names one."""
    return TurnRecord(claim.pid, claim.command, claim.since, claim.host)


@contextmanager
def hold_room_turn(
    target: RoomTarget,
    label: str,
    command: str,
    *,
    wait_s: float = 0.0,
    on_wait: Callable[[TurnRecord], None] | None = None,
    hint: str | None = WAIT_HINT,
) -> Iterator[str]:
    """Hold the room's turn for the block (``label`` names the document in
    messages), which gets the claim id the lease names while it is held;
    :class:`TurnRunning` (ending with ``hint``) when another host or process
    holds it."""
    holder = _LeaseThread(target, label, command, wait_s, on_wait, hint)
    holder.start()
    try:
        yield holder.claim.id
    finally:
        holder.stop()


class _LeaseThread:
    """The thread holding the claim (pycrdt documents stay on one thread)."""

    def __init__(
        self,
        target: RoomTarget,
        label: str,
        command: str,
        wait_s: float,
        on_wait: Callable[[TurnRecord], None] | None,
        hint: str | None,
    ) -> None:
        self.target = target
        self.label = label
        self.wait_s = wait_s
        self.on_wait = on_wait
        self.hint = hint
        self.claim = Claim(
            uuid.uuid4().hex, socket.gethostname(), _pid(), command, time.time()
        )
        self._decided = threading.Event()
        self._stopping = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)

    def start(self) -> None:
        """Claim the turn; return once it is held (or raise why not)."""
        self._thread.start()
        self._decided.wait()
        if self._failure is not None:
            self._thread.join(timeout=5)
            raise self._failure

    def stop(self) -> None:
        """End the turn: the claim is deleted (bounded), the thread joined."""
        self._stopping.set()
        self._thread.join(timeout=20)

    def _main(self) -> None:
        import anyio

        try:
            anyio.run(self._hold)
        except BaseException as exc:  # reported to the turn, never lost
            if not self._decided.is_set():
                self._failure = (
                    exc
                    if isinstance(exc, TurnRunning)
                    else _failed(exc, self.target.url)
                )
            else:  # the turn reports the room's failure itself, if it matters
                logger.debug("holding the room's turn failed: %s", exc)
        finally:
            self._decided.set()

    async def _hold(self) -> None:
        async with RoomLink(self.target, writing=False) as link:
            await self._claim(link)
            await self._until_granted(link)
            self._decided.set()
            await self._beat_until_stopped(link)
            await self._release(link)

    async def _claim(self, link: RoomLink) -> None:
        sent = link.updates_sent
        claims_map(link.doc)[self.claim.id] = self.claim.encode()
        await link.settled(sent)

    async def _until_granted(self, link: RoomLink) -> None:
        """Wait for the server's decision; refuse or queue as ``run`` does."""
        decided_by = time.monotonic() + DECISION_S
        waited = False
        deadline = 0.0
        while True:
            lease = current_lease(link.doc)
            if lease is not None and lease.id == self.claim.id:
                return
            if lease is not None:
                decided_by = float("inf")
                if self.wait_s <= 0:
                    await self._release(link)
                    raise TurnRunning(
                        turn_refusal(self.label, record_of(lease), self.hint)
                    )
                if not waited:
                    waited, deadline = True, time.monotonic() + self.wait_s
                    if self.on_wait is not None:
                        self.on_wait(record_of(lease))
                elif time.monotonic() > deadline:
                    await self._release(link)
                    raise TurnRunning(
                        f"{self.label}: the running turn "
                        f"({record_of(lease).describe()}) did not end within "
                        f"{self.wait_s:g} s"
                    )
            elif time.monotonic() > decided_by:
                await self._release(link)
                raise ShareError(
                    f"{self.target.url} did not grant the turn within "
                    f"{DECISION_S:g} s (is its agent-doc serve older than this one?)"
                )
            await _changed(link.doc, 0.25)

    async def _beat_until_stopped(self, link: RoomLink) -> None:
        import anyio

        lease = current_lease(link.doc)
        interval = max((lease.ttl if lease else 30.0) / 4, 0.05)
        beat = self.claim.beat
        while not await anyio.to_thread.run_sync(self._stopping.wait, interval):
            lease = current_lease(link.doc)
            claims = claims_map(link.doc)
            if (
                lease is None
                or lease.id != self.claim.id
                or self.claim.id not in claims
            ):
                logger.debug("the room's turn was taken back (no beat for its ttl)")
                return  # the answer's landing is refused (it checks the lease)
            beat += 1
            claims[self.claim.id] = Claim(
                self.claim.id,
                self.claim.host,
                self.claim.pid,
                self.claim.command,
                self.claim.since,
                beat,
            ).encode()

    async def _release(self, link: RoomLink) -> None:
        claims = claims_map(link.doc)
        if self.claim.id in claims:
            sent = link.updates_sent
            del claims[self.claim.id]
            await link.settled(sent)


async def _changed(doc: Any, timeout: float) -> None:
    """Wait until ``doc`` changes, at most ``timeout`` seconds."""
    import anyio

    changed = anyio.Event()
    subscription = doc.observe(lambda _event: changed.set())
    try:
        with anyio.move_on_after(timeout):
            await changed.wait()
    finally:
        doc.unobserve(subscription)


def _failed(exc: BaseException, url: str) -> BaseException:
    failure = room_failure(exc, url)
    return failure if isinstance(failure, Exception) else ShareError(str(failure))


def _pid() -> int:
    return os.getpid()
