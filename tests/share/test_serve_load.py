"""What kept ``agent-doc serve`` from keeping up with 50 busy rooms.

Profiled under bench_share's load (50 rooms × 3 peers × 10 chars/s), the
event loop spent most of its time in the file watcher's filter: for every file
event in the project (each SQLite commit creates and deletes a journal file)
it resolved the path of every open room. Each keystroke's update was also
deflate-compressed for every peer. A storm of unrelated file events must not
stall the rooms, and the server offers no permessage-deflate.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest

from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(120)
ROOMS = 50


def storm(folder: Path, stop: threading.Event) -> int:
    """Create and delete files in ``folder`` until ``stop``; how many."""
    folder.mkdir()
    count = 0
    while not stop.is_set():
        path = folder / f"f{count}.tmp"  # each name a change of its own
        path.write_bytes(b"x")
        path.unlink()
        count += 1
    return count


async def test_a_storm_of_file_events_does_not_stall_busy_rooms(
    project: Path,
) -> None:
    for n in range(ROOMS):
        session = str(uuid.UUID(int=0xC000 + n, version=4))
        (project / f"doc{n}.md").write_text(DOC.replace(SESSION, session), "utf-8")
    with serving(project) as served:
        token = token_of(project)
        async with AsyncExitStack() as stack:
            for n in range(ROOMS):  # every room open, its file watched
                session = str(uuid.UUID(int=0xC000 + n, version=4))
                await stack.enter_async_context(peer(served.room(session), token))
            alice = await stack.enter_async_context(peer(served.room(), token))
            bob = await stack.enter_async_context(peer(served.room(), token))
            stop = threading.Event()
            made: list[int] = []
            thread = threading.Thread(
                target=lambda: made.append(storm(project / "storm", stop))
            )
            thread.start()
            lags = []
            try:
                at = len(str(alice.text).encode())
                for key in range(30):  # 3 s of typing at 10 chars/s
                    sent = time.monotonic()
                    alice.type(at + key, "x")
                    want = str(alice.text)
                    await bob.until(lambda t, want=want: t == want, timeout=30)
                    lags.append(time.monotonic() - sent)
                    await anyio.sleep(0.1)  # the person's pace
            finally:
                stop.set()
                thread.join(10)
    assert made[0] > 1000  # a storm it was
    assert max(lags) < 1.0, f"{made[0]} file events; lags {sorted(lags)[-3:]}"


def test_the_server_offers_no_permessage_deflate(project: Path) -> None:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    served = ServeProcess(project).start()
    try:
        parts = urlsplit(served.url)
        assert parts.hostname is not None
        assert parts.port is not None
        with socket.create_connection((parts.hostname, parts.port), 10) as conn:
            conn.sendall(
                (
                    f"GET /{SESSION} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n"
                    "Sec-WebSocket-Extensions: permessage-deflate\r\n"
                    f"Authorization: Bearer {token_of(project)}\r\n\r\n"
                ).encode()
            )
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                assert chunk, head
                head += chunk
    finally:
        served.kill()
    status, *headers = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    assert " 101 " in status, status
    assert not [h for h in headers if "permessage-deflate" in h.lower()], headers
