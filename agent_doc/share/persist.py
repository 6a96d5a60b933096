"""One room's store writes, batched: at most one SQLite commit per window.

pycrdt-websocket's ``YRoom`` writes every Yjs update to its YStore as its own
task and its own SQLite transaction (a cursor, an insert, a commit, each in a
worker thread, plus a checkpoint every 100 writes): about 1 ms of the server's
CPU per keystroke. At 50 rooms × 3 peers × 10 chars/s that is more than the
2 cores of a small machine, and the room's broadcasts queue behind it.

A :class:`RoomPersister` observes the room's document instead (the room is
given no store) and writes the updates gathered since its last write as one
merged update, at most once every :data:`BATCH_WINDOW` seconds. The first
update after a quiet spell is written at once; under load, one commit per room
per window. The in-memory room stays the truth for its peers; a ``kill -9``
loses at most the last window from the store, and peers that reconnect send
it again through the sync exchange (the items keep their ids: merged once,
never duplicated).
"""

from __future__ import annotations

import logging
from typing import Any

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import pycrdt
    from pycrdt.store import BaseYStore

logger = logging.getLogger(__name__)

BATCH_WINDOW = 0.25
"""Seconds between two store writes of one room (the most a crash can lose)."""

declare_points(
    {
        "serve.store.before_write": "a batch of the room's updates applied in "
        "memory (and sent to the peers), not stored",
        "serve.store.after_write": "a batch of the room's updates is in its store",
    }
)


class RoomPersister:
    """Writes one room's document changes to its store, batched per window."""

    def __init__(
        self,
        name: str,
        store: BaseYStore,
        doc: pycrdt.Doc[Any],
        window: float = BATCH_WINDOW,
    ) -> None:
        import anyio

        self.name = name
        """The room's name (its session id), for the log."""
        self.store = store
        """The room's started YStore."""
        self.window = window
        """Seconds between two writes."""
        self.writes = 0
        """Store writes made so far (each one SQLite commit)."""
        self._last_write = -window
        self._doc = doc
        self._pending: list[bytes] = []
        self._gathered = anyio.Event()
        self._gathered_count = 0
        self._stored_count = 0
        self._wrote = anyio.Event()
        self._lock = anyio.Lock()
        self._subscription = doc.observe(self._gather)

    def _gather(self, event: pycrdt.TransactionEvent) -> None:
        update: bytes = event.update
        if update != b"\x00\x00":  # an empty transaction changes nothing
            self._pending.append(update)
            self._gathered_count += 1
            self._gathered.set()

    @property
    def pending(self) -> int:
        """Updates gathered and not written yet."""
        return len(self._pending)

    async def run(self) -> None:
        """Write gathered updates, at most once per window (forever)."""
        import anyio

        while True:
            await self._gathered.wait()
            await anyio.sleep_until(self._last_write + self.window)
            await self.write_pending()

    async def stored(self) -> None:
        """Wait until every change made so far is in the store (by the next
        batch: no extra write). The file's projection waits for this before
        it writes, so the file never holds text the store lacks."""
        wanted = self._gathered_count
        while self._stored_count < wanted:
            await self._wrote.wait()

    async def write_pending(self) -> None:
        """Write every update gathered so far as one merged update, now.

        A write that fails is kept to be tried again with the next batch, a
        window later (a store that keeps failing is not retried in a loop).
        """
        import anyio
        import pycrdt

        async with self._lock:
            self._gathered = anyio.Event()
            batch, self._pending = self._pending, []
            covered = self._gathered_count
            if not batch:
                return
            merged = batch[0] if len(batch) == 1 else pycrdt.merge_updates(*batch)
            try:
                crash_point("serve.store.before_write")
                await self.store.write(merged)
                crash_point("serve.store.after_write")
            except Exception:
                logger.exception(
                    "room %s: storing %d updates failed", self.name, len(batch)
                )
                self._pending[:0] = [merged]
                self._last_write = anyio.current_time()  # retried a window later
                self._gathered.set()
                return
            self.writes += 1
            self._last_write = anyio.current_time()
            self._stored_count = covered
            wrote, self._wrote = self._wrote, anyio.Event()
            wrote.set()

    def close(self) -> None:
        """Stop gathering the document's changes (what is pending stays)."""
        self._doc.unobserve(self._subscription)
