"""``agent-doc serve``: a Yjs sync server with one room per session document.

pycrdt-websocket's ``WebsocketServer`` holds the rooms; this module adds what a
shared session document needs around it: the bearer-token check before a
socket is accepted, the room name checked against the project's session
documents, a SQLiteYStore per room (``.agent-doc/share/rooms/<id>.db``, the
source of truth: a room is seeded from its file only when the store has nothing for
it), the file projection and the file watcher (:mod:`.room_file`), and peers'
presence cleared when their socket closes (:mod:`.presence`). uvicorn serves
the ASGI app on a socket bound here, so ``--port 0`` works and the address is
known before the first connection.
"""

from __future__ import annotations

import gc
import ipaddress
import logging
import platform
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from uvloop import new_event_loop
except ImportError:  # no build for Windows: asyncio's own loop
    new_event_loop = None  # type: ignore[assignment]

from agent_doc.errors import ShareError
from agent_doc.share.access import bearer_token
from agent_doc.share.access import is_loopback
from agent_doc.share.access import read_token_file
from agent_doc.share.access import share_dir
from agent_doc.share.access import token_matches
from agent_doc.share.documents import ROOM_NAME
from agent_doc.share.session import ShareSession

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Awaitable

logger = logging.getLogger(__name__)

STORE_DIR = "rooms"
"""The folder of the rooms' SQLiteYStore databases under ``.agent-doc/share/``."""
LEGACY_STORE_FILE = "rooms.db"
"""The one database all rooms shared before (migrated room by room)."""
PING_S = 2.0
"""Seconds between the server's websocket pings, and for each pong: a peer
whose network went silent (no close ever arrives) is dropped, and its presence
cleared, within about twice this (uvicorn's default, 20 s + 20 s, kept such a
peer shown for up to 40 s)."""


@dataclass(frozen=True)
class ServeOptions:
    """How to run ``agent-doc serve``."""

    root: Path
    """The project whose session documents become rooms."""
    host: str = "127.0.0.1"
    """The address to bind (loopback unless a token is required)."""
    port: int = 8765
    """The TCP port (0: any free port, printed when ready)."""
    token: str | None = None
    """The bearer token clients must send; ``None`` only on loopback."""
    token_file: Path | None = None
    """Where the token is kept: read again on every connect, so a rotated
    token applies at once (a missing file then refuses everyone)."""


def check_bind(options: ServeOptions) -> None:
    """Refuse to serve a non-loopback address without a token (:class:`ShareError`)."""
    if options.token is None and not is_loopback(options.host):
        raise ShareError(
            f"refusing to bind {options.host} without a token: only a loopback "
            "address (127.0.0.1, ::1) may be served with --no-token"
        )


def bind(options: ServeOptions) -> socket.socket:
    """A listening socket on ``host:port`` (:class:`ShareError` when it cannot be)."""
    check_bind(options)
    try:
        infos = socket.getaddrinfo(options.host, options.port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        raise ShareError(
            f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}"
        ) from None
    sock.setblocking(False)
    return sock


def address_of(sock: socket.socket) -> str:
    """The ``ws://host:port`` a bound socket serves."""
    host, port = sock.getsockname()[:2]
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"


def peer_addresses(sock: socket.socket) -> list[str]:
    """The ``ws://host:port`` other machines may use for a bound socket.

    A wildcard bind (``0.0.0.0``, ``::``) is no address to connect to: this
    machine's name and its non-loopback addresses (those its name resolves to,
    and the one its default route leaves from; no packet is sent) are.
    """
    host, port = sock.getsockname()[:2]
    if not ipaddress.ip_address(host).is_unspecified:
        return [address_of(sock)]
    name = socket.gethostname()
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        found += [str(info[4][0]) for info in infos]
    except OSError:
        pass
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET: a route lookup, nothing sent
        found.append(str(probe.getsockname()[0]))
    except OSError:
        pass
    finally:
        probe.close()
    usable = [
        a for a in dict.fromkeys(found) if not ipaddress.ip_address(a).is_loopback
    ]
    if ":" not in host:  # an IPv4 wildcard serves IPv4 only
        usable = [a for a in usable if ":" not in a]
    hosts = [name, *(f"[{a}]" if ":" in a else a for a in usable)]
    return [f"ws://{h}:{port}" for h in hosts]


def run_server(
    options: ServeOptions, on_ready: Callable[[str, list[str]], None]
) -> None:
    """Serve until SIGINT/SIGTERM; ``on_ready(url, peer urls)`` once connections
    are accepted (:func:`peer_addresses`).

    The rooms' projections are flushed to their files before returning.
    """
    import anyio

    sock = bind(options)
    large_buffers_returned()
    anyio.run(_serve, options, sock, on_ready, backend_options=loop_options())


def loop_options() -> dict[str, Any]:
    """anyio's asyncio options for serve: uvloop's event loop where uvloop is
    installed (it is a dependency everywhere but Windows), else asyncio's own.

    Under 50 rooms × 3 typing peers uvloop's loop took 23 % less CPU and a
    third of the lag p99 (docs/benchmarks.md, issue 37 item 5): every
    keystroke wakes tasks in pycrdt-websocket's rooms and uvicorn.
    """
    return {} if new_event_loop is None else {"loop_factory": new_event_loop}


GC_THRESHOLDS = (10_000, 10, 10)
"""The cyclic GC's thresholds in serve (CPython's default: 700, 10, 10)."""


def long_lived_heap() -> tuple[int, tuple[int, int, int]]:
    """Keep serve's start-up objects out of the cyclic GC and collect its
    young generation every :data:`GC_THRESHOLDS` allocations instead of 700;
    the objects frozen and the thresholds set.

    Every keystroke allocates tasks, frames, ASGI dicts and exceptions that
    live a few milliseconds; under 50 rooms × 3 typing peers the default
    thresholds started about 20 young collections a second and a full one
    (17–99 ms with the loop stopped) every 6–7 s: 7–14 % of the lags over
    10 ms. With these, no full collection runs during such a load and the
    young ones take 24 ms in 30 s (docs/benchmarks.md, issue 37 item 5). The
    modules, the app and the loop are never garbage: frozen, a full
    collection no longer walks them.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return gc.get_freeze_count(), gc.get_threshold()


MMAP_THRESHOLD = 128 << 10
"""Allocations from this size on get pages of their own (glibc's default,
made fixed: see :func:`large_buffers_returned`)."""


def large_buffers_returned() -> bool:
    """Have glibc give every allocation of :data:`MMAP_THRESHOLD` or more its
    own pages, returned to the system when freed; ``False`` where there is no
    glibc (nothing changed).

    glibc raises that threshold to the largest block freed so far, so after a
    1 MB document's first copies (its text, its update, the sync message and
    its frame) every later copy came from the heap and stayed in the server's
    memory (bench/bench_share.py (b)). The hot path's messages are far below it.
    """
    import ctypes

    if platform.libc_ver()[0] != "glibc":
        return False
    m_mmap_threshold = -3  # <malloc.h>
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(m_mmap_threshold, MMAP_THRESHOLD))
    except (OSError, AttributeError):
        return False


async def _serve(
    options: ServeOptions,
    sock: socket.socket,
    on_ready: Callable[[str, list[str]], None],
) -> None:
    import anyio
    import uvicorn
    from pycrdt.websocket import WebsocketServer

    rooms = WebsocketServer(rooms_ready=True, auto_clean_rooms=False, log=logger)
    async with rooms, anyio.create_task_group() as tasks:
        session = ShareSession(options.root, rooms, tasks)
        shared = share_dir(options.root)
        session.start_store(shared / STORE_DIR, shared / LEGACY_STORE_FILE)
        tasks.start_soon(session.watch_files)
        app = ShareApp(session, options.token, options.token_file)
        # no permessage-deflate: a keystroke's update is a few dozen bytes,
        # and compressing every one cost both sides more CPU than the whole
        # sync (Yjs's own server, on ws, does not compress either).
        # websockets' sans-I/O protocol, not wsproto: under 50 rooms × 3
        # typing peers wsproto's framing kept the loop saturated and the lag
        # grew (p50 1.4 s); with websockets the lag stayed at p50 ~150 ms
        config = uvicorn.Config(
            app,
            ws="websockets-sansio",
            ws_per_message_deflate=False,
            lifespan="off",
            log_config=None,
            access_log=False,
            ws_ping_interval=PING_S,
            ws_ping_timeout=PING_S,
        )
        server = uvicorn.Server(config)
        frozen, thresholds = long_lived_heap()
        logger.debug("%d start-up objects frozen, GC thresholds %s", frozen, thresholds)
        # the socket listens already: a client connecting now waits in the
        # backlog until uvicorn accepts, so the address can be announced
        on_ready(address_of(sock), peer_addresses(sock))
        # uvicorn re-raises the signal that stopped it once it is done: these
        # handlers take it, so the projections below are flushed before exit
        previous = {
            s: signal.signal(s, _noted) for s in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            await server.serve(sockets=[sock])
        finally:
            await session.flush()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            tasks.cancel_scope.cancel()


def _noted(signum: int, _frame: Any) -> None:
    logger.debug("signal %d after shutdown", signum)


class ShareApp:
    """The ASGI app: checks the token and the room, then joins the socket to it."""

    def __init__(
        self, session: ShareSession, token: str | None, token_file: Path | None = None
    ) -> None:
        self.session = session
        """The rooms and their files."""
        self.token = token
        """The bearer token clients must send (``None``: none needed)."""
        self.token_file = token_file
        """The token's file, read on every connect (rotation without restart)."""

    def _expected_token(self) -> str | None:
        if self.token is None or self.token_file is None:
            return self.token

        return read_token_file(self.token_file)  # ShareError: refuse everyone

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> None:
        """Serve one ASGI connection (websocket only; HTTP gets a 404)."""
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["type"] != "websocket":
            return
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        client = scope.get("client") or ("?", 0)
        refusal = self._refusal(scope)
        if refusal is not None:
            logger.warning(
                "refused %s:%s %s: %s", client[0], client[1], scope["path"], refusal
            )
            # closed before accept: the upgrade is answered 403, no room data sent
            await send({"type": "websocket.close", "code": 1008})
            return
        who, room = f"{client[0]}:{client[1]}", scope["path"].removeprefix("/")
        logger.info("%s joined room %s", who, room)
        try:
            await self.session.join(scope["path"], receive, send)
        finally:
            logger.info("%s left room %s", who, room)

    def _refusal(self, scope: dict[str, Any]) -> str | None:
        """Why a connection is refused, or ``None`` when it may join."""
        try:
            expected = self._expected_token()
        except ShareError as exc:
            return str(exc)
        if expected is not None:
            given = bearer_token(scope.get("headers", []))
            if given is None:
                hint = (
                    " (a token in the URL is never read)"
                    if scope.get("query_string")
                    else ""
                )
                return f"no Authorization: Bearer token{hint}"
            if not token_matches(given, expected):
                return "wrong token"
        name = scope["path"].removeprefix("/")
        if not ROOM_NAME.match(name):
            return "not a room name"
        if self.session.document_of(name) is None:
            return "no session document with that id"
        return None
