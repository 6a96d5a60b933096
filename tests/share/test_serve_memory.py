"""``agent-doc serve``'s memory for a large room, and its event loop (issue 37 item 5).

A 1 MB document (non-ASCII, so each decoded copy is 4 MB) costs the server
about 8 MB here (y-websocket's Node server: about 9 MB, docs/benchmarks.md);
before freed large buffers went back to the system
(``agent_doc.share.server.large_buffers_returned``) it was about 16 MB, and
this test failed."""

from __future__ import annotations

import re
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from pycrdt import create_sync_message

from agent_doc.share.server import GC_THRESHOLDS
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import Peer
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(90)

MB = 1_000_000
FROZEN = re.compile(
    r"(\d+) start-up objects frozen, GC thresholds \((\d+), (\d+), (\d+)\)"
)
SMALL_ROOMS = 20


async def settled(joined: Peer) -> None:
    """Wait until the server answered a sync step 1 sent now."""
    replies = joined.channel.replies
    await joined.channel.send(create_sync_message(joined.doc))
    with anyio.fail_after(30):
        await joined.channel.wait_until(lambda: joined.channel.replies > replies)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def large_document(session: str) -> str:
    head = f"---\nagent_doc_session: {session}\nagent_doc_format: template\n---\n"
    # non-ASCII, as a conversation is: each decoded copy is 4 bytes a character
    line = "Turn after turn: prose about the design, é and 😀 here.\n"
    return head + "# Big\n\n" + line * (MB // len(line.encode()))


async def test_a_one_megabyte_room_costs_the_server_under_twelve_megabytes(
    project: Path,
) -> None:
    small = [str(uuid.uuid4()) for _ in range(SMALL_ROOMS)]
    for n, session in enumerate(small):
        (project / f"small{n}.md").write_text(
            DOC.replace(SESSION, session), encoding="utf-8"
        )
    big = str(uuid.uuid4())
    text = large_document(big)
    (project / "big.md").write_text(text, encoding="utf-8")
    served = ServeProcess(project).start()
    try:
        token = token_of(project)
        async with AsyncExitStack() as peers:  # a server in use, as in the bench
            for session in small:
                await peers.enter_async_context(peer(served.room(session), token))
            before = rss_mb(served.proc.pid)
            joined = await peers.enter_async_context(peer(served.room(big), token))
            assert str(joined.text) == text
            await settled(joined)
            grown = rss_mb(served.proc.pid) - before
        assert grown < 12 * len(text.encode()) / MB, grown
    finally:
        served.kill()


async def test_serve_runs_on_uvloops_event_loop(project: Path) -> None:
    """uvloop is a dependency (not on Windows): serve's loop is uvloop's, which
    took 23 % less CPU under the 50 rooms × 3 peers load."""
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    served = ServeProcess(project).start()
    try:
        async with peer(served.room(), token_of(project)) as joined:
            assert SESSION in str(joined.text)  # serving, on the loop it runs
        maps = Path(f"/proc/{served.proc.pid}/maps").read_text()
        assert "/uvloop/loop." in maps, "serve's loop is not uvloop's"
    finally:
        served.kill()


async def test_serve_keeps_its_start_up_objects_out_of_the_cyclic_gc(
    project: Path,
) -> None:
    """serve freezes what it built at start-up and collects its young objects
    every 10,000 allocations, not 700 (``server.long_lived_heap``): with
    CPython's defaults, full collections stopped its loop for 17–99 ms every
    6–7 s under 50 rooms × 3 typing peers (7–14 % of the lags over 10 ms)."""
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    served = ServeProcess(project, env={"AGENT_DOC_DEBUG": "1"}).start()
    try:
        async with peer(served.room(), token_of(project)) as joined:
            assert SESSION in str(joined.text)
        said = [found for line in served.lines if (found := FROZEN.search(line))]
        assert said, served.lines
        frozen, *thresholds = (int(n) for n in said[0].groups())
        assert frozen > 10_000, frozen  # the modules, the app, the loop
        assert tuple(thresholds) == GC_THRESHOLDS
        assert GC_THRESHOLDS[0] > 700  # CPython's default
    finally:
        served.kill()
