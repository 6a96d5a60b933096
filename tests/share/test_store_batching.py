"""A room's store writes are batched, and a crash inside a batch loses nothing.

pycrdt-websocket's room committed every Yjs update to SQLite on its own (about
1 ms of the server's CPU per keystroke: 50 busy rooms fell behind). A
:class:`~agent_doc.share.persist.RoomPersister` writes a room's updates as one
merged update at most once per window. In process, against a real
SQLiteYStore: a burst is one write, a lone edit is written at once. Against a
real ``agent-doc serve``: a burst of keystrokes is a handful of rows, not one
per key, and a ``kill -9`` inside a window — the store then lacks the window —
ends, once the peer reconnects, with every key exactly once in the room, the
file and the store.
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import pycrdt
import pytest
from pycrdt.store import SQLiteYStore

from agent_doc.share.persist import BATCH_WINDOW
from agent_doc.share.persist import RoomPersister
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import stored_text
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(90)
KEYS = 120


def rows(db: Path) -> int:
    with sqlite3.connect(db, timeout=10) as reader:
        count: int = reader.execute("select count(*) from yupdates").fetchone()[0]
    return count


class CountedStore(SQLiteYStore):
    """A real SQLiteYStore that reports each finished write."""

    written = 0
    wrote: anyio.Event

    async def write(self, data: bytes) -> None:
        await super().write(data)
        self.written += 1
        self.wrote.set()

    async def until_written(self, count: int) -> None:
        with anyio.fail_after(5):
            while self.written < count:
                self.wrote = anyio.Event()
                await self.wrote.wait()


async def test_a_burst_is_one_write_and_a_lone_edit_is_written_at_once(
    tmp_path: Path,
) -> None:
    store = CountedStore("room")
    store.wrote = anyio.Event()
    store.db_path = str(tmp_path / "room.db")
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    text = doc.get("content", type=pycrdt.Text)
    async with anyio.create_task_group() as tasks:
        await tasks.start(store.start)
        persister = RoomPersister("room", store, doc, window=0.5)
        tasks.start_soon(persister.run)
        started = anyio.current_time()
        text += "first"
        await store.until_written(1)  # the first edit after a quiet spell: now
        assert anyio.current_time() - started < 0.5
        for n in range(50):  # 50 transactions inside one window
            text += f" {n}"
        assert persister.pending == 50
        with anyio.fail_after(5):  # what the file's projection waits for
            await persister.stored()
        assert persister.pending == 0
        assert persister.writes == 2  # by the window's batch, no extra write
        await store.until_written(2)
        persister.close()
        await store.stop()
        tasks.cancel_scope.cancel()
    assert rows(tmp_path / "room.db") == 2
    assert await stored_text(tmp_path / "room.db", "room") == str(text)


class FailingStore(SQLiteYStore):
    """A store whose disk is full: every write fails."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.attempts: list[float] = []
        """When each write was tried."""
        self.retried_twice = anyio.Event()

    async def write(self, data: bytes) -> None:
        self.attempts.append(time.monotonic())
        if len(self.attempts) == 3:
            self.retried_twice.set()
        raise OSError("no space left on device")


async def test_a_failing_store_is_retried_once_a_window_and_keeps_the_edits(
    tmp_path: Path,
) -> None:
    store = FailingStore("room")
    store.db_path = str(tmp_path / "room.db")
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    text = doc.get("content", type=pycrdt.Text)
    async with anyio.create_task_group() as tasks:
        await tasks.start(store.start)
        persister = RoomPersister("room", store, doc, window=0.2)
        tasks.start_soon(persister.run)
        text += "kept"
        with anyio.fail_after(10):
            await store.retried_twice.wait()  # the first try and two retries
        tries = store.attempts[:3]
        gaps = [later - earlier for earlier, later in itertools.pairwise(tries)]
        assert min(gaps) >= 0.9 * 0.2  # once a window, not a busy loop
        assert persister.pending == 1  # the edit is kept for the next try
        persister.close()
        await store.stop()
        tasks.cancel_scope.cancel()


async def test_keystrokes_reach_the_store_in_batches_not_one_row_each(
    project: Path,
) -> None:
    db = project / ".agent-doc" / "share" / "rooms" / f"{SESSION}.db"
    with serving(project) as served:
        async with peer(served.room(), token_of(project)) as alice:
            at = len(str(alice.text).encode())
            before = rows(db)
            began = time.monotonic()
            for key in range(KEYS):  # one transaction, one message per key
                alice.type(at + key, "abcdefghij"[key % 10])
                await anyio.sleep(0.005)
            typed = str(alice.text)
            await wait_file(project / "pair.md", lambda t: t == typed)
            windows = (time.monotonic() - began) / BATCH_WINDOW
        assert served.stop() == 0
    assert await stored_text(db) == typed
    # one row per key before batching; now at most one a window (a slower
    # machine types over more windows), plus the last write at the stop
    assert rows(db) - before <= windows + 2
    assert rows(db) - before < KEYS


async def test_kill_9_inside_a_batch_window_then_reconnect_duplicates_nothing(
    project: Path,
) -> None:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    db = project / ".agent-doc" / "share" / "rooms" / f"{SESSION}.db"
    kept: pycrdt.Doc[Any] = pycrdt.Doc()  # alice's document survives the crash
    first = ServeProcess(project).start()
    token = token_of(project)
    typed = ""
    try:
        async with (
            peer(first.room(), token, kept) as alice,
            peer(first.room(), token) as bob,
        ):
            at = len(str(alice.text).encode())
            for key in range(40):
                alice.type(at + key, "klmnopqrst"[key % 10])
                await anyio.sleep(0.002)
            await bob.until(lambda t: t == str(alice.text))  # the room has all
            typed = str(alice.text)
            first.kill()  # within the batch window of the last keys
    except Exception:  # the socket dies under the providers
        pass
    finally:
        first.kill()
    assert typed.count("klmnopqrst" * 4) == 1
    lost = typed != await stored_text(db)
    second = ServeProcess(project).start()
    try:
        async with peer(second.room(), token, kept) as alice:  # resends the window
            async with peer(second.room(), token) as carol:
                text = await carol.until(lambda t: t == typed)
            assert str(alice.text) == typed
        assert await wait_file(project / "pair.md", lambda t: t == typed) == typed
        assert second.stop() == 0
    finally:
        second.kill()
    assert await stored_text(db) == typed
    assert text.count("# Pairing") == 1
    print(f"the store lacked the last window after kill -9: {lost}")
