"""``agent-doc serve``'s rooms on the websockets library's own server, not uvicorn.

A measurement for issue 37 item 5 (c), not a product path: the same
``ShareSession`` (pycrdt-websocket's ``WebsocketServer`` and ``YRoom``, a
SQLiteYStore per room written by ``RoomPersister``, the file projections,
the presence clean-up) behind ``websockets.asyncio.server.serve`` instead of
uvicorn's ASGI layer. Serve's HTTP needs are met in ``process_request``: the
token and room checks answer 403 before any room data is sent, a request that
is no websocket upgrade gets 404. Each peer's socket is a pycrdt ``Channel``
over the websockets connection (no ASGI dict, no queue per message).

Run from a project (``bench/serve_variants.py`` starts it):
``python bench/serve_websockets.py ROOT``; it says ``agent-doc serve: listening
on ws://HOST:PORT/<session id>`` on stderr and stops on SIGINT/SIGTERM after
writing every room to its store and file.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
from http import HTTPStatus
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request
from websockets.http11 import Response

from agent_doc.share.access import ensure_token
from agent_doc.share.access import share_dir
from agent_doc.share.access import token_path
from agent_doc.share.presence import PeerSocket
from agent_doc.share.presence import forget_peer
from agent_doc.share.presence import greeting
from agent_doc.share.server import LEGACY_STORE_FILE
from agent_doc.share.server import PING_S
from agent_doc.share.server import STORE_DIR
from agent_doc.share.server import ServeOptions
from agent_doc.share.server import ShareApp
from agent_doc.share.server import address_of
from agent_doc.share.server import bind
from agent_doc.share.server import large_buffers_returned
from agent_doc.share.server import loop_options
from agent_doc.share.session import ShareSession

logger = logging.getLogger("agent_doc.share.server")

MAX_MESSAGE = 16 << 20
"""uvicorn's default ``ws_max_size`` (websockets' own default is 1 MiB)."""


class ConnectionChannel:
    """A pycrdt ``Channel`` over a websockets server connection."""

    def __init__(self, connection: ServerConnection, path: str) -> None:
        self._connection = connection
        self._path = path

    @property
    def path(self) -> str:
        """The room's path (``/<session id>``)."""
        return self._path

    async def send(self, message: bytes) -> None:
        """Send one binary message (to a peer that left: dropped)."""
        try:
            await self._connection.send(message)
        except ConnectionClosed:
            pass

    async def recv(self) -> bytes:
        """The next message (``StopAsyncIteration`` once the socket closed)."""
        try:
            message = await self._connection.recv(decode=False)
        except ConnectionClosed:
            raise StopAsyncIteration from None
        return bytes(message)


def peer_socket(connection: ServerConnection, path: str) -> PeerSocket:
    """serve's ``PeerSocket`` (awareness bookkeeping) over the connection."""

    async def unused(*_args: Any) -> Any:
        raise RuntimeError("not an ASGI socket")

    peer = PeerSocket(unused, unused, path)
    peer._socket = ConnectionChannel(connection, path)  # type: ignore[assignment]
    return peer


class WebsocketsShare:
    """The session's rooms behind websockets' server."""

    def __init__(self, app: ShareApp) -> None:
        self.app = app
        """serve's ASGI app: its refusal checks are reused as they are."""

    def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """403 for a refused token or room, 404 for a request that is no
        websocket upgrade, ``None`` (go on with the handshake) otherwise."""
        if "websocket" not in request.headers.get("Upgrade", "").lower():
            return connection.respond(HTTPStatus.NOT_FOUND, "")
        path, _, query = request.path.partition("?")
        scope = {
            "path": path,
            "query_string": query.encode(),
            "headers": [
                (k.lower().encode("latin-1"), v.encode("latin-1"))
                for k, v in request.headers.raw_items()
            ],
        }
        refusal = self.app._refusal(scope)
        if refusal is None:
            return None
        logger.warning("refused %s %s: %s", connection.remote_address, path, refusal)
        return connection.respond(HTTPStatus.FORBIDDEN, "")

    async def handler(self, connection: ServerConnection) -> None:
        """Serve one accepted socket in its room until it closes."""
        assert connection.request is not None
        path = connection.request.path.partition("?")[0]
        name = path.removeprefix("/")
        session = self.app.session
        room = await session.open_room(name)
        peer = peer_socket(connection, path)
        peer.stored = session.persisters[name].stored
        peer.room_awareness = room.awareness
        known = greeting(room)
        try:
            if known is not None:
                await peer.send(known)
            await session.rooms.serve(peer)
        finally:
            await forget_peer(room, peer)


async def run(root: Path, sock: socket.socket, token: str) -> None:
    """Serve ``root``'s rooms on ``sock`` until SIGINT/SIGTERM."""
    from pycrdt.websocket import WebsocketServer

    rooms = WebsocketServer(rooms_ready=True, auto_clean_rooms=False, log=logger)
    async with rooms, anyio.create_task_group() as tasks:
        session = ShareSession(root, rooms, tasks)
        shared = share_dir(root)
        session.start_store(shared / STORE_DIR, shared / LEGACY_STORE_FILE)
        tasks.start_soon(session.watch_files)
        share = WebsocketsShare(ShareApp(session, token, token_path(root)))
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with serve(
                share.handler,
                sock=sock,
                process_request=share.process_request,
                compression=None,
                ping_interval=PING_S,
                ping_timeout=PING_S,
                max_size=MAX_MESSAGE,
            ):
                logger.info("listening on %s/<session id>", address_of(sock))
                async for _ in signals:
                    break
        await session.flush()
        tasks.cancel_scope.cancel()


def main() -> None:
    """Serve the project given as the only argument."""
    root = Path(sys.argv[1]).resolve()
    logging.basicConfig(level=logging.WARNING, format="agent-doc serve: %(message)s")
    logging.getLogger("agent_doc").setLevel(logging.INFO)
    token = ensure_token(root)
    sock = bind(ServeOptions(root, port=0, token=token, token_file=token_path(root)))
    large_buffers_returned()
    anyio.run(run, root, sock, token, backend_options=loop_options())


if __name__ == "__main__":
    main()
