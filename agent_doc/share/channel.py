"""A ``pycrdt.Channel`` over an httpx-ws websocket, with write acknowledgement.

pycrdt 0.14 ships no httpx-ws adapter. Besides sending and receiving, this one
counts the sync messages that pass, so a writer can know its update reached
the room: the server handles one socket's messages in order, so when a
SYNC_STEP2 arrives in reply to a SYNC_STEP1 sent after the update, the room
has applied the update (:meth:`WebsocketChannel.acknowledged`).
"""

from __future__ import annotations

from typing import Any

_SYNC = 0
_STEP2, _UPDATE = 1, 2


class WebsocketChannel:
    """The ``Channel`` protocol (``path``, ``send``, ``recv``, async iteration)."""

    def __init__(self, websocket: Any, path: str) -> None:
        import anyio

        self._websocket = websocket
        self._path = path
        self._send_lock = anyio.Lock()
        self._changed = anyio.Event()
        self.updates_sent = 0
        """How many SYNC_UPDATE messages (local transactions) went out."""
        self.replies = 0
        """How many SYNC_STEP2 messages came in."""

    @property
    def path(self) -> str:
        """The room's path (``/<uuid>``)."""
        return self._path

    def __aiter__(self) -> WebsocketChannel:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self.recv()
        except Exception:  # the socket closed: the provider's loop ends
            raise StopAsyncIteration from None

    async def send(self, message: bytes) -> None:
        """Send one message (one at a time: messages are never interleaved)."""
        async with self._send_lock:
            await self._websocket.send_bytes(message)
        if message[:2] == bytes([_SYNC, _UPDATE]):
            self.updates_sent += 1
            self._notify()

    async def recv(self) -> bytes:
        """The next message from the server."""
        message = bytes(await self._websocket.receive_bytes())
        if message[:2] == bytes([_SYNC, _STEP2]):
            self.replies += 1
            self._notify()
        return message

    def _notify(self) -> None:
        import anyio

        self._changed.set()
        self._changed = anyio.Event()

    async def wait_until(self, ready: Any) -> None:
        """Wait until ``ready()`` holds (checked after every counted message)."""
        while not ready():
            await self._changed.wait()

    async def acknowledged(
        self, state_message: bytes, sent_before: int | None = None
    ) -> None:
        """Wait until the room applied what was sent so far — and, with
        ``sent_before``, until an update was sent after that mark.

        ``state_message`` is a SYNC_STEP1 of the local document; the server's
        SYNC_STEP2 reply comes after it has applied everything sent before.
        """
        if sent_before is not None:
            mark = sent_before
            await self.wait_until(lambda: self.updates_sent > mark)
        replies = self.replies
        await self.send(state_message)
        await self.wait_until(lambda: self.replies > replies)
