"""The long-lived room peer (``agent_doc.share.peer``) against a real ``agent-doc serve``.

Peers converge; edits made on both sides while one peer is cut off (by a TCP
proxy, or by a ``kill -9`` of the server) merge once, without duplicating the
document, when it reconnects; a wrong token is a clear status and no storm of
retries. Every wait is bounded and woken by the peer's own callbacks.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer
from tests.share.proxy import FaultyProxy
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(90)


class Running:
    """A started peer, its reported statuses, and bounded waits on them."""

    def __init__(self, url: str, token: str | None, user: str) -> None:
        self.statuses: list[PeerStatus] = []
        self.remote: list[str] = []
        self.attempts: list[float] = []
        """When each connection attempt began (it asks for the token)."""
        self._event = anyio.Event()

        def token_source() -> str | None:
            self.attempts.append(time.monotonic())
            self._wake()
            return token

        self.peer = RoomPeer(
            url,
            token_source,
            on_remote=self._on_remote,
            on_status=self._on_status,
            user=user,
            backoff=(0.1, 1.0),
        )

    def _on_remote(self, text: str) -> None:
        self.remote.append(text)
        self._wake()

    def _on_status(self, status: PeerStatus) -> None:
        self.statuses.append(status)
        self._wake()

    def _wake(self) -> None:
        self._event.set()
        self._event = anyio.Event()

    async def until(self, check: Callable[[], bool], timeout: float = 15) -> None:
        with anyio.fail_after(timeout):
            while not check():
                await self._event.wait()

    async def text(self, check: Callable[[str], bool]) -> str:
        await self.until(lambda: check(self.peer.current()))
        return self.peer.current()

    async def label(self, wanted: str) -> None:
        await self.until(lambda: self.peer.status.label() == wanted)

    def type(self, after: str, chars: str) -> None:
        """Insert ``chars`` after the first ``after`` (a local edit)."""
        old = self.peer.current()
        at = old.index(after) + len(after)
        self.peer.apply_local(old, old[:at] + chars + old[at:])


@asynccontextmanager
async def joined(
    url: str, token: str | None, user: str = "someone"
) -> AsyncIterator[Running]:
    running = Running(url, token, user)
    async with anyio.create_task_group() as tg:
        tg.start_soon(running.peer.run)
        try:
            yield running
        finally:
            running.peer.close()


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


async def test_two_peers_converge_and_count_each_other(served: ServeProcess) -> None:
    token = token_of(served.root)
    async with (
        joined(served.room(), token, "alice") as alice,
        joined(served.room(), token, "bob") as bob,
    ):
        assert await alice.text(lambda t: t == DOC) == DOC  # the room's text
        await bob.text(lambda t: t == DOC)
        await alice.label("shared · 1 peer")
        await bob.label("shared · 1 peer")
        alice.type("What is", " (quickly)")
        bob.type("# Pairing", " — éé 🙂")
        both = await alice.text(lambda t: "🙂" in t)
        assert await bob.text(lambda t: "(quickly)" in t) == both
        assert both.count("What is (quickly) 6 x 7?") == 1
        assert both.count("# Pairing — éé 🙂\n") == 1
        assert alice.remote[-1] == both  # reported to the consumer
    assert [s.state for s in alice.statuses][:1] == ["shared"]


async def test_offline_edits_on_both_sides_merge_once_after_a_cut(
    served: ServeProcess,
) -> None:
    token = token_of(served.root)
    async with (
        FaultyProxy(served.url) as proxy,
        joined(f"{proxy.url}/{SESSION}", token, "alice") as alice,
        joined(served.room(), token, "bob") as bob,
    ):
        await alice.label("shared · 1 peer")
        await bob.label("shared · 1 peer")
        proxy.down = True
        proxy.cut()
        await alice.label("offline")
        await bob.label("shared · 0 peers")  # the server cleared alice
        alice.type("What is", " [alice offline]")
        bob.type("idle", " [bob meanwhile]")
        await proxy.wait_accepted(proxy.accepted + 2)  # alice retries: refused
        assert "[bob meanwhile]" not in alice.peer.current()
        proxy.down = False
        await alice.label("shared · 1 peer")
        done = await alice.text(lambda t: "[bob meanwhile]" in t)
        assert await bob.text(lambda t: "[alice offline]" in t) == done
    assert done.count("What is [alice offline] 6 x 7?") == 1
    assert done.count("idle [bob meanwhile]") == 1
    assert done.count("# Pairing") == 1  # the document was not inserted again
    assert len(done) == len(DOC) + len(" [alice offline]") + len(" [bob meanwhile]")


async def test_kill_9_and_restart_merges_offline_edits_without_duplicates(
    served: ServeProcess, project: Path
) -> None:
    token = token_of(served.root)
    async with FaultyProxy(served.url) as proxy:
        room = f"{proxy.url}/{SESSION}"
        async with joined(room, token, "alice") as alice, joined(room, token) as bob:
            await alice.label("shared · 1 peer")
            alice.type("What is", " 6 x 7, or")
            await bob.text(lambda t: "or 6 x 7" in t)
            served.kill()
            await alice.label("offline")
            await bob.label("offline")
            alice.type("idle", " (alice, server down)")
            bob.type("# Pairing", " (bob, server down)")
            restarted = ServeProcess(project).start()
            try:
                proxy.point_at(restarted.url)
                done = await alice.text(lambda t: "bob, server down" in t)
                await alice.label("shared · 1 peer")
                await bob.label("shared · 1 peer")
                assert await bob.text(lambda t: "alice, server down" in t) == done
            finally:
                restarted.kill()
    for part in ("6 x 7, or 6 x 7", "(alice, server down)", "(bob, server down)"):
        assert done.count(part) == 1, done
    assert done.count("<!-- agent:exchange -->") == 1
    extra = (
        len(" 6 x 7, or") + len(" (alice, server down)") + len(" (bob, server down)")
    )
    assert len(done) == len(DOC) + extra


async def test_wrong_token_is_a_clear_status_and_no_retry_storm(
    served: ServeProcess,
) -> None:
    async with joined(served.room(), "not-the-token") as peer:
        await peer.until(lambda: peer.peer.status.state == "refused")
        assert "HTTP 403" in peer.peer.status.detail
        assert "token" in peer.peer.status.detail
        served.wait_line(r"refused .*: wrong token")
        await peer.until(lambda: len(peer.attempts) >= 2)  # the one retry
        # a refusal waits the longest backoff (1 s here) before it tries
        # again; a storm would retry after the first (0.1 s)
        assert peer.attempts[1] - peer.attempts[0] >= 0.9
        assert [s.state for s in peer.statuses] == ["refused"]
        assert peer.peer.current() == ""  # nothing of the room was received
