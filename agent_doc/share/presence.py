"""Presence (Yjs awareness) on the server: newcomers told, leavers cleared.

pycrdt-websocket relays awareness messages but keeps a peer's state after its
socket closes (a client that crashes or loses its network never says goodbye),
so other peers would show it for the awareness timeout (30 s) or forever. Each
socket records the awareness client ids it announced as its own (not the other
peers' states a y-websocket client echoes); when it closes, the server removes
those states and tells the remaining peers at once. Messages are read and
written with pycrdt's public codec (``Decoder``, ``Encoder``).

Nor does it tell a newcomer who is already there (y-websocket's own server
does): a peer that announced itself once — the agent's writer, a Yjs client —
would stay unseen by anyone who joined after. :func:`greeting` is the message
a new socket gets first: every state the room knows.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

_AWARENESS = 1
"""``YMessageType.AWARENESS``: the first byte of an awareness message."""
_SYNC_STEP1 = bytes([0, 0])
"""``YMessageType.SYNC`` + ``SYNC_STEP1``: a peer asking what it lacks."""


class PeerSocket:
    """An accepted websocket that remembers the awareness ids its peer used.

    The ``Channel`` pycrdt-websocket's ``WebsocketServer.serve`` takes, over
    its ``ASGIWebsocket``.
    """

    def __init__(
        self,
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
        path: str,
    ) -> None:
        from pycrdt.websocket.asgi_server import ASGIWebsocket

        self._socket = ASGIWebsocket(receive, send, path)
        self.awareness_ids: set[int] = set()
        """Awareness client ids this socket's peer announced as its own."""
        self.room_awareness: Any = None
        """The room's ``pycrdt.Awareness`` (tells an echo from an announcement)."""
        self.stored: Callable[[], Awaitable[None]] | None = None
        """Returns once the room's changes so far are in its store."""

    @property
    def path(self) -> str:
        """The room's path (``/<session id>``)."""
        return self._socket.path

    def __aiter__(self) -> PeerSocket:
        return self

    async def __anext__(self) -> bytes:
        return await self.recv()

    async def recv(self) -> bytes:
        """The next message; awareness updates are noted on the way.

        A sync step 1 is passed on only once what the peer sent before it is
        stored: the answer to it (what a writer's ``settled`` waits for) then
        says the peer's edits are durable, not only applied in memory — a
        ``write --room`` that returned has its answer in the store.
        """
        message: bytes = await self._socket.recv()
        if message[:2] == _SYNC_STEP1 and self.stored is not None:
            await self.stored()
        if message[:1] == bytes([_AWARENESS]):
            try:
                self.awareness_ids.update(self._announced(message))
            except (IndexError, ValueError, RuntimeError):  # pycrdt: RuntimeError
                logger.debug("unreadable awareness message from %s", self.path)
        return message

    def _announced(self, message: bytes) -> list[int]:
        """The clients whose state ``message`` brings to the room (not yet
        applied). A y-websocket client echoes every awareness change it hears,
        other peers' too, at the clock the room already has: those are not its
        own, and its leaving must not clear them."""
        from pycrdt import read_message

        entries = update_entries(read_message(message[1:]))
        room = self.room_awareness
        known: dict[int, int] = {}
        if room is not None:
            held = [c for c in entries if c in room.states]
            known = update_clocks(room.encode_awareness_update(held))
        return [
            client
            for client, (clock, present) in entries.items()
            if present and clock > known.get(client, -1)
        ]

    async def send(self, message: bytes) -> None:
        """Send ``message``; to a peer that already left, drop it.

        pycrdt-websocket broadcasts each update with one task per peer in the
        room's task group: a send to a socket that just closed raised there and
        took the whole room down — no more broadcasts, and the store writes
        still queued in that group were cancelled (edits the store lost). The
        peer's own serve loop ends on the close and removes it.
        (y-crdt/pycrdt-websocket#94 removes a failed client, but the failed
        send still ends the room's task group.)
        """
        try:
            await self._socket.send(message)
        except (
            OSError,
            RuntimeError,
        ) as exc:  # uvicorn's ClientDisconnected is OSError
            logger.debug("dropped a message to %s, which left: %s", self.path, exc)


def update_entries(update: bytes) -> dict[int, tuple[int, bool]]:
    """The client ids of an awareness update, each with the clock it carries
    and whether it carries a state (``False``: ``null``, the client left)."""
    from pycrdt import Decoder

    decoder = Decoder(update)
    entries = {}
    for _ in range(decoder.read_var_uint()):
        client = decoder.read_var_uint()
        clock = decoder.read_var_uint()
        entries[client] = (clock, decoder.read_message() not in (b"null", b""))
    return entries


def update_clocks(update: bytes) -> dict[int, int]:
    """The client ids of an awareness update, each with the clock it carries."""
    return {client: clock for client, (clock, _) in update_entries(update).items()}


def removal_message(clocks: dict[int, int]) -> bytes:
    """An awareness message setting each client's state to null at a newer clock."""
    from pycrdt import Encoder
    from pycrdt import create_awareness_message

    encoder = Encoder()
    encoder.write_var_uint(len(clocks))
    for client, clock in clocks.items():
        encoder.write_var_uint(client)
        encoder.write_var_uint(clock + 1)
        encoder.write_var_string("null")
    return create_awareness_message(encoder.to_bytes())


def greeting(room: Any) -> bytes | None:
    """An awareness message with every peer state the room knows (``None``: none)."""
    from pycrdt import create_awareness_message

    awareness = room.awareness
    known = [
        client
        for client, state in awareness.states.items()
        if client != awareness.client_id and state
    ]
    if not known:
        return None
    return bytes(create_awareness_message(awareness.encode_awareness_update(known)))


async def forget_peer(room: Any, peer: PeerSocket) -> None:
    """Remove a closed socket's awareness states and tell the remaining peers."""
    import anyio

    awareness = room.awareness
    gone = [c for c in peer.awareness_ids if c in awareness.states]
    if not gone:
        return
    clocks = update_clocks(awareness.encode_awareness_update(gone))
    awareness.remove_awareness_states(gone, "disconnect")
    message = removal_message(clocks)
    async with anyio.create_task_group() as tg:
        for client in list(room.clients):
            if client is not peer:
                tg.start_soon(_send_quietly, client, message)
    logger.debug("peer left %s: presence of %s cleared", peer.path, gone)


async def _send_quietly(client: Any, message: bytes) -> None:
    try:
        await client.send(message)
    except Exception:  # that peer is leaving too
        logger.debug("presence update to %s failed", client.path)
