"""A y-websocket (Node) client in a room of a real ``agent-doc serve``.

Yjs's own JavaScript client (``yjs`` + ``y-websocket``'s ``WebsocketProvider``,
from npm: :mod:`tests.share.yjs_node`) joins the document's room with the
bearer token in the ``Authorization`` header, sees the document, types (with
non-ASCII text: Yjs counts UTF-16 units, the server's pycrdt does not) and the
edit reaches the file on disk and a Python peer; an answer written by
``agent-doc write --room`` reaches it. Presence goes both ways: the client sees
an agent-doc peer's name and cursor, the peer sees the client's. A wrong token
is refused before anything of the room is sent. Skipped, with the reason, when npm cannot be reached.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer
from tests.cli_runner import agent_doc
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import token_of
from tests.share.rooms import wait_file
from tests.share.yjs_node import NodeProcess
from tests.share.yjs_node import NotInstallable
from tests.share.yjs_node import ensure_yjs

pytestmark = pytest.mark.timeout(120)  # a first run installs from npm (~15 s)

TYPED = " (from Node: é 🙂)"


@pytest.fixture(scope="module")
def node_modules() -> Path:
    try:
        return ensure_yjs()
    except NotInstallable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


@pytest.fixture
def node_client(
    node_modules: Path, served: ServeProcess
) -> Iterator[Callable[[str], NodeProcess]]:
    started: list[NodeProcess] = []

    def start(token: str) -> NodeProcess:
        client = NodeProcess(
            node_modules, "client", served.url, SESSION, env={"YJS_TOKEN": token}
        )
        started.append(client)
        return client

    yield start
    for client in started:
        client.stop()


def _text_with(part: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["event"] in ("synced", "text") and part in e["text"]


async def test_a_y_websocket_client_reads_types_and_receives_an_answer(
    served: ServeProcess,
    node_client: Callable[[str], NodeProcess],
    project: Path,
    tmp_path: Path,
) -> None:
    token = token_of(project)
    node = node_client(token)
    synced = await anyio.to_thread.run_sync(
        lambda: node.wait_event(lambda e: e["event"] == "synced")
    )
    assert synced["text"] == DOC  # the room's text, seeded from the file

    async with peer(served.room(), token) as python_peer:
        node.send({"op": "insert", "after": "What is", "text": TYPED})
        await anyio.to_thread.run_sync(
            lambda: node.wait_event(lambda e: e["event"] == "inserted")
        )
        typed = f"What is{TYPED} 6 x 7?"
        on_disk = await wait_file(project / "pair.md", lambda t: typed in t)
        assert on_disk.count(typed) == 1
        assert await python_peer.until(lambda t: typed in t) == on_disk

        token_file = tmp_path / "token"
        token_file.write_text(token + "\n")
        agent_host = tmp_path / "agent-host"
        agent_host.mkdir()
        (agent_host / "pair.md").write_text(DOC, encoding="utf-8")
        args = [
            "write",
            "pair.md",
            "--room",
            served.url,
            "--token-file",
            str(token_file),
        ]
        written = await anyio.to_thread.run_sync(
            lambda: agent_doc(*args, cwd=agent_host, stdin=ANSWER)
        )
        assert written.returncode == 0, written.stderr
        seen = await anyio.to_thread.run_sync(
            lambda: node.wait_event(_text_with("It is 42."))
        )
        assert seen["remote"] is True
        final = await python_peer.until(lambda t: "It is 42." in t)
    assert seen["text"] == final
    assert final.count("It is 42.") == 1
    assert final.count(typed) == 1
    assert final.index(typed) < final.index("It is 42.")  # the answer below it
    assert await wait_file(project / "pair.md", lambda t: t == final) == final


async def test_a_y_websocket_client_with_a_wrong_token_gets_nothing(
    served: ServeProcess, node_client: Callable[[str], NodeProcess]
) -> None:
    node = node_client("not-the-token")
    await anyio.to_thread.run_sync(
        lambda: node.wait_event(lambda e: e["event"] in ("closed", "error"))
    )
    await anyio.to_thread.run_sync(lambda: served.wait_line(r"refused .*: wrong token"))
    assert not [e for e in node.events if e["event"] in ("synced", "text")]


async def test_presence_reaches_a_y_websocket_client_and_back(
    served: ServeProcess, node_client: Callable[[str], NodeProcess]
) -> None:
    """The awareness states are y-protocols': a y-websocket client sees an
    agent-doc peer's name and cursor, and the peer sees the client's."""
    token = token_of(served.root)
    node = node_client(token)
    await anyio.to_thread.run_sync(
        lambda: node.wait_event(lambda e: e["event"] == "synced")
    )
    kim = {
        "user": {"name": "kim", "color": "#30bced"},
        "cursor": {"line": 5, "character": 1},
    }
    node.send({"op": "presence", "state": kim})
    seen = anyio.Event()
    statuses: list[PeerStatus] = []

    def on_status(status: PeerStatus) -> None:
        statuses.append(status)
        if any(p.name == "kim" and p.cursor == (5, 1) for p in status.present):
            seen.set()

    bob = RoomPeer(
        served.room(), lambda: token, on_remote=lambda _t: None,
        on_status=on_status, user="bob",
    )  # fmt: skip
    async with anyio.create_task_group() as tg:
        tg.start_soon(bob.run)
        with anyio.fail_after(15):
            await seen.wait()
        bob.set_cursor((7, 3))

        def bob_in(event: dict[str, Any]) -> bool:
            return event["event"] == "awareness" and any(
                state
                == {
                    "user": {"name": "bob", "kind": "editor"},
                    "cursor": {"line": 7, "character": 3},
                }
                for _id, state in event["states"]
            )

        await anyio.to_thread.run_sync(lambda: node.wait_event(bob_in))
        bob.close()
    kim_seen = next(p for p in statuses[-1].present if p.name == "kim")
    assert (kim_seen.kind, kim_seen.writing) == ("editor", False)
    assert statuses[-1].label() == "shared · 1 peer"
