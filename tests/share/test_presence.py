"""Presence (Yjs awareness) through a real ``agent-doc serve``.

A peer that announced itself once (as the agent's writer or a Yjs client
does) is seen by a peer that joins after it: the server greets every new
socket with the states it knows. States of the wrong shape are skipped, not
fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pycrdt
import pytest

from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer
from agent_doc.share.presence_state import PeerPresence
from agent_doc.share.presence_state import read_presence
from agent_doc.share.presence_state import status_words
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


async def test_a_peer_that_announced_once_is_seen_by_a_later_newcomer(
    served: ServeProcess,
) -> None:
    token = token_of(served.root)
    async with peer(served.room(), token) as writer:
        awareness = pycrdt.Awareness(writer.doc)
        awareness.set_local_state(
            {"user": {"name": "agent", "kind": "agent"}, "writing": True}
        )
        update = awareness.encode_awareness_update([awareness.client_id])
        await writer.channel.send(pycrdt.create_awareness_message(update))
        # the writer says nothing more. The server handles one socket's
        # messages in order: a sync reply after it means the state is applied.
        with anyio.fail_after(10):
            await writer.channel.acknowledged(pycrdt.create_sync_message(writer.doc))

        statuses: list[PeerStatus] = []
        seen = anyio.Event()

        def on_status(status: PeerStatus) -> None:
            statuses.append(status)
            if status.writing():
                seen.set()

        newcomer = RoomPeer(
            served.room(),
            lambda: token,
            on_remote=lambda _t: None,
            on_status=on_status,
            user="bob",
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(newcomer.run)
            with anyio.fail_after(10):
                await seen.wait()
            newcomer.close()
    writing = next(s for s in statuses if s.writing())
    assert writing.label() == "shared · 0 peers · agent writing"
    assert [(p.name, p.kind, p.writing) for p in writing.present] == [
        ("agent", "agent", True)
    ]


def test_states_of_another_shape_are_read_without_failing() -> None:
    assert read_presence(7, None) is None  # left
    assert read_presence(7, {"cursor": {"line": 1}}) is None  # no user
    odd = read_presence(
        7, {"user": {"name": 3}, "cursor": {"line": -1, "character": "x"}}
    )
    assert odd == PeerPresence(7, "peer 7", "editor", None, False)
    yjs = read_presence(9, {"user": {"name": "kim", "color": "#f00"}, "cursor": {}})
    assert yjs == PeerPresence(9, "kim", "editor", None, False)


def test_the_status_words_count_editors_and_name_who_writes() -> None:
    ann = PeerPresence(2**40, "ann", "editor", (3, 1), False)
    agent = PeerPresence(5, "agent", "agent", None, True)
    assert status_words((ann, agent)) == "1 peer · agent writing"
    assert status_words((agent,)) == "0 peers · agent writing"
    assert status_words((ann, ann._replace(client=1, name="bob"))) == "2 peers"
