"""The rooms of one ``agent-doc serve``: opened on demand, each with its file.

A room is opened once, on the first connection to it, under a per-room lock
(pycrdt-websocket starts a room twice when two peers join a new room at the
same moment: "YRoom already running"). Opening loads the room's Yjs state from
the room's own SQLiteYStore (``.agent-doc/share/rooms/<session id>.db``: one
database per room, so rooms never wait on each other's writes — on one shared
database, 50 busy rooms failed writes with "database is locked", and a failed
write is an edit the store lost); only when the store has nothing is the room
seeded from the document, and otherwise the document is compared with it
first: an edit made while the server was down is merged in before any peer
joins. Each room's turn is decided by a
:class:`~agent_doc.share.lease_arbiter.LeaseArbiter`. The room's changes
reach its store through a :class:`~agent_doc.share.persist.RoomPersister`:
one commit per room per batch window, not one per keystroke. Rooms stay open
while the server runs, so outside edits of their files keep flowing into the
store even when no peer is connected.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_doc.share.documents import find_session_documents
from agent_doc.share.lease_arbiter import LeaseArbiter
from agent_doc.share.persist import RoomPersister
from agent_doc.share.presence import PeerSocket
from agent_doc.share.presence import forget_peer
from agent_doc.share.presence import greeting
from agent_doc.share.room_file import RoomFile

logger = logging.getLogger(__name__)

_OPEN_TIMEOUT = 30.0


def write_ahead_log(db_path: Path) -> None:
    """Switch a room's database to SQLite's write-ahead log (kept in the file).

    A batched write (:mod:`.persist`) is then one append to the log and one
    fsync, not a rollback journal created, synced and deleted plus the
    database synced: under 50 rooms × 3 typing peers the stores' worker
    threads took about 40 % of the server's CPU with the journal (half with
    the log). Just as durable (``synchronous`` stays FULL); readers never
    block the writer.
    """
    import sqlite3

    with contextlib.closing(sqlite3.connect(db_path, timeout=10)) as db:
        db.execute("PRAGMA journal_mode=WAL")


class ShareSession:
    """The rooms, their stores and their files."""

    def __init__(self, root: Path, rooms: Any, tasks: Any) -> None:
        self.root = Path(root).resolve()
        """The project root."""
        self.rooms = rooms
        """The pycrdt-websocket ``WebsocketServer``."""
        self.tasks = tasks
        """The task group the stores and projections run in."""
        self.files: dict[str, RoomFile] = {}
        """Open rooms' projections by session id."""
        self._documents: dict[str, Path] = {}
        self._locks: dict[str, Any] = {}
        self.persisters: dict[str, RoomPersister] = {}
        """Open rooms' batched store writers by session id."""
        self.watched: dict[str, RoomFile] = {}
        """Open rooms' projections by their document's resolved path."""
        self._store_dir = Path()
        self._legacy: Path | None = None

    def start_store(self, store_dir: Path, legacy: Path | None = None) -> None:
        """Keep each room's database in ``store_dir``; ``legacy`` is the one
        database all rooms shared before, read once per room to migrate it."""
        store_dir.mkdir(parents=True, exist_ok=True)
        self._store_dir = store_dir
        self._legacy = legacy if legacy is not None and legacy.is_file() else None

    def _store(self, name: str, db_path: Path | None = None) -> Any:
        from pycrdt.store import SQLiteYStore

        store = SQLiteYStore(name, log=logger)
        store.db_path = str(db_path or self._store_dir / f"{name}.db")
        return store

    async def _legacy_state(self, name: str) -> bytes | None:
        """Room ``name``'s state in the shared database of older versions."""
        from pycrdt import Doc
        from pycrdt.store import YDocNotFound

        if self._legacy is None or (self._store_dir / f"{name}.db").exists():
            return None
        old = self._store(name, self._legacy)
        await self.tasks.start(old.start)
        doc: Doc[Any] = Doc()
        try:
            await old.apply_updates(doc)
        except YDocNotFound:
            return None
        finally:
            await old.stop()
        return doc.get_update()  # the items keep their ids: peers merge, no copy

    def document_of(self, name: str) -> Path | None:
        """The session document of room ``name`` (rescanned when unknown)."""
        if name not in self._documents:
            self._documents = find_session_documents(self.root)
        return self._documents.get(name)

    async def open_room(self, name: str) -> Any:
        """The started room ``name``, opened from the store (or seeded) once."""
        import anyio

        lock = self._locks.setdefault(name, anyio.Lock())
        async with lock:
            if name in self.files:
                return self.rooms.rooms["/" + name]
            with anyio.fail_after(_OPEN_TIMEOUT):
                return await self._open(name)

    async def _open(self, name: str) -> Any:
        import anyio
        from pycrdt import Doc
        from pycrdt.store import YDocNotFound
        from pycrdt.websocket import YRoom
        from pycrdt.websocket.websocket_server import exception_logger

        path = self.document_of(name)
        if path is None:
            raise LookupError(name)
        migrated = await self._legacy_state(name)
        store = self._store(name)
        await self.tasks.start(store.start)
        await store.db_initialized.wait()  # it creates the tables meanwhile
        await anyio.to_thread.run_sync(write_ahead_log, Path(store.db_path))
        if migrated is not None:
            await store.write(migrated)
            logger.info("room %s moved to its own store", name)
        doc: Doc[Any] = Doc()
        try:
            await store.apply_updates(doc)
            stored = True
        except YDocNotFound:
            stored = False
        # from here on, every change of the document reaches the store
        persister = RoomPersister(name, store, doc)
        # no ystore for the room: it would commit every update on its own
        room = YRoom(
            ready=True, ydoc=doc, log=logger, exception_handler=exception_logger
        )
        self.rooms.rooms["/" + name] = room
        await self.rooms.start_room(room)
        await room.ydoc_observed.wait()  # from here on, changes reach the peers
        projection = RoomFile(self.root, name, path, doc, persister.stored)
        if not stored:
            projection.seed()
        else:
            # before any peer joins: an edit of the file made while the
            # server was down is merged into the room (as a diff), so the
            # first turn after a restart sees it
            await projection.reconcile()
        # durable before any peer gets it: a server killed before the
        # room's first (batched) write would seed it again on restart,
        # a second history that duplicates the text for every peer
        await persister.write_pending()
        arbiter = LeaseArbiter(name, doc)
        self.files[name] = projection
        self.watched[str(path.resolve())] = projection
        self.persisters[name] = persister
        self.tasks.start_soon(persister.run)
        self.tasks.start_soon(projection.run)
        self.tasks.start_soon(arbiter.run)
        logger.info("room %s open (%s)", name, path.relative_to(self.root))
        return room

    async def join(
        self,
        path: str,
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> None:
        """Accept a checked websocket and serve it in its room until it closes."""
        room = await self.open_room(path.removeprefix("/"))
        await send({"type": "websocket.accept"})
        peer = PeerSocket(receive, send, path)
        peer.stored = self.persisters[path.removeprefix("/")].stored
        peer.room_awareness = room.awareness
        known = greeting(room)
        try:
            if known is not None:
                await peer.send(known)  # who is already here
            await self.rooms.serve(peer)
        finally:
            await forget_peer(room, peer)

    async def watch_files(self) -> None:
        """Poke a room's projection when its document changes on disk (forever).

        The filter runs on the event loop for every file event in the project
        (the stores' journals, the projections, anything else): a lookup in
        :attr:`watched`, never a path resolution per event and room (that
        stalled the loop for seconds at 50 busy rooms).
        """
        import watchfiles

        def wanted(_change: Any, name: str) -> bool:
            return name in self.watched

        async for changes in watchfiles.awatch(self.root, watch_filter=wanted):
            for _change, name in changes:
                projection = self.watched.get(name)
                if projection is not None:
                    projection.poke()

    async def flush(self) -> None:
        """Write every open room's pending updates to its store and the room
        to its file, now (at shutdown, before the tasks are cancelled)."""
        for name, persister in self.persisters.items():
            try:
                await persister.write_pending()
            except Exception:
                logger.exception("storing room %s failed", name)
        for projection in self.files.values():
            try:
                await projection.sync()
            except Exception:
                logger.exception("flushing %s failed", projection.path)
