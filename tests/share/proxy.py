"""A small asyncio TCP proxy between a peer and ``agent-doc serve``, for fault tests.

It forwards bytes both ways and can :meth:`~FaultyProxy.cut` every open
connection (both sockets closed at once), go :attr:`~FaultyProxy.down` (new
connections are closed as soon as they are accepted), :attr:`delay` every
chunk, :attr:`drop` traffic silently (bytes read and thrown away: a half-dead
network) and be pointed at another server (:attr:`target`, e.g. after a
restart on a new port).
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


class FaultyProxy:
    """Listens on 127.0.0.1 (any free port) and forwards to ``target``."""

    def __init__(self, target_url: str) -> None:
        self.target = _host_port(target_url)
        """``(host, port)`` new connections are forwarded to."""
        self.down = False
        """Close new connections at once (the server looks unreachable)."""
        self.delay = 0.0
        """Seconds each forwarded chunk is held back."""
        self.drop = False
        """Read and discard traffic instead of forwarding it."""
        self.accepted = 0
        """How many connections were accepted (forwarded or not)."""
        self._accepts = asyncio.Event()
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:PORT`` of the proxy."""
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}"

    async def wait_accepted(self, count: int, timeout: float = 10) -> None:
        """Wait until ``count`` connections were accepted in all."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.accepted < count:
            remaining = deadline - asyncio.get_running_loop().time()
            await asyncio.wait_for(self._accepts.wait(), max(remaining, 0))

    def point_at(self, target_url: str) -> None:
        """Forward new connections to another server."""
        self.target = _host_port(target_url)

    async def __aenter__(self) -> FaultyProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.cut()
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 5)

    def cut(self) -> None:
        """Close every open connection (both sides)."""
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                writer.transport.abort()
        self._writers.clear()

    async def _handle(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.accepted += 1
        self._accepts.set()
        self._accepts = asyncio.Event()
        if self.down:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_writer))
        pumps = [
            asyncio.ensure_future(self._pump(reader, up_writer)),
            asyncio.ensure_future(self._pump(up_reader, writer)),
        ]
        self._tasks.update(pumps)
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
                self._tasks.discard(pump)
            for w in (writer, up_writer):
                self._writers.discard(w)
                with contextlib.suppress(Exception):
                    w.transport.abort()

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while chunk := await reader.read(65536):
                if self.delay:
                    await asyncio.sleep(self.delay)
                if self.drop:
                    continue
                writer.write(chunk)
                await writer.drain()


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None
    assert parts.port is not None
    return parts.hostname, parts.port
