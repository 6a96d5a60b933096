"""Many busy rooms at once: every edit reaches the store, none is lost.

A real ``agent-doc serve`` with 12 session documents; a peer types in each
room at the same time. After a clean stop and a restart, a new peer of each
room gets everything typed, from the store alone. On one database shared by
all rooms, concurrent writes failed with "database is locked" — each failure
an edit the store lost.
"""

from __future__ import annotations

import sqlite3
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pycrdt

from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of

ROOMS = 40
KEYS = 30


def sessions(project: Path) -> list[str]:
    ids = [str(uuid.UUID(int=n + 1, version=4)) for n in range(ROOMS)]
    for n, session in enumerate(ids):
        doc = project / f"doc{n}.md"
        doc.write_text(DOC.replace(SESSION, session), encoding="utf-8")
    return ids


async def test_every_edit_of_many_busy_rooms_is_in_the_store(project: Path) -> None:
    ids = sessions(project)
    first = ServeProcess(project).start()
    token = token_of(project)
    try:
        async with AsyncExitStack() as stack:
            peers = [
                await stack.enter_async_context(peer(first.room(s), token)) for s in ids
            ]

            async def type_in(n: int) -> None:
                for key in range(KEYS):
                    text = peers[n].text
                    text.insert(len(str(text).encode()), f"<{n}.{key}>")
                    await anyio.sleep(0.002)

            async with anyio.create_task_group() as typing:
                for n in range(ROOMS):
                    typing.start_soon(type_in, n)
            for n, session in enumerate(ids):  # the server has every key
                async with peer(first.room(session), token) as watcher:
                    await watcher.until(lambda t, n=n: f"<{n}.{KEYS - 1}>" in t, 30)
        assert first.stop() == 0
    finally:
        first.kill()
    assert not [line for line in first.lines if "database is locked" in line]
    assert not [line for line in first.lines if "WebsocketServer exception" in line]
    second = ServeProcess(project).start()
    try:
        for n, session in enumerate(ids):
            async with peer(second.room(session), token) as reader:
                text = str(reader.text)
            for key in range(KEYS):
                assert text.count(f"<{n}.{key}>") == 1, (n, key)
    finally:
        second.kill()


async def test_a_room_of_the_old_shared_database_is_migrated_once(
    project: Path,
) -> None:
    """A room stored by an earlier version in ``rooms.db`` opens with its text."""
    from pycrdt.store import SQLiteYStore

    (project / "pair.md").write_text(DOC, encoding="utf-8")
    shared = project / ".agent-doc" / "share"
    shared.mkdir(parents=True, exist_ok=True)
    kept = pycrdt.Doc()
    text = kept.get("content", type=pycrdt.Text)
    text += DOC + "typed before the upgrade\n"
    old = SQLiteYStore(SESSION)
    old.db_path = str(shared / "rooms.db")
    async with anyio.create_task_group() as tasks:
        await tasks.start(old.start)
        await old.write(kept.get_update())
        await old.stop()
    served = ServeProcess(project).start()
    try:
        async with peer(served.room(), token_of(project), kept) as alice:
            alice.type(len(str(alice.text).encode()), "after the upgrade\n")
            async with peer(served.room(), token_of(project)) as bob:
                now = await bob.until(lambda t: "after the upgrade" in t)
    finally:
        served.kill()
    assert now.count("typed before the upgrade") == 1
    assert now.count("What is 6 x 7?") == 1
    assert (shared / "rooms" / f"{SESSION}.db").is_file()
    rows = sqlite3.connect(shared / "rooms.db").execute("select count(*) from yupdates")
    assert rows.fetchone()[0] >= 1  # the old database is left as it was
