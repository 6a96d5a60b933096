"""One way into a room: open, authenticate, sync — and a refusal explained.

Both peers of a room go through :func:`open_room`: the agent's
:class:`~agent_doc.share.room_link.RoomLink` (one turn's write) and an editor's
long-lived :class:`~agent_doc.share.peer.RoomPeer` (one call per connection).
It opens the websocket (httpx-ws over an httpx client, the token in the
``Authorization`` header), runs a ``pycrdt.Provider`` for the caller's ``Doc``
over the caller's channel, and returns into the block once the first sync is
done (bounded). :func:`refusal` and :func:`room_failure` say why a connection
failed, in the same words for both.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any
from typing import TypeVar
from urllib.parse import urlsplit

from agent_doc.errors import ShareError
from agent_doc.share.access import refusal_reason
from agent_doc.share.channel import WebsocketChannel

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pycrdt import Doc

TIMEOUT = 15.0
"""Seconds allowed to connect, to sync, and for the room to apply an edit."""

ChannelT = TypeVar("ChannelT", bound=WebsocketChannel)


def bearer_headers(token: str | None) -> dict[str, str]:
    """The HTTP headers that present ``token`` (none without one)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


@asynccontextmanager
async def open_room(
    url: str,
    token: str | None,
    doc: Doc[Any],
    channel: Callable[[Any, str], ChannelT],
    *,
    keepalive_s: float | None = None,
    log: logging.Logger | None = None,
    on_open: Callable[[ChannelT], None] = lambda _c: None,
) -> AsyncIterator[ChannelT]:
    """Join the room at ``url`` with ``doc``; inside the block the first sync
    is done and the provider keeps ``doc`` and the room in step.

    ``channel(websocket, path)`` makes the channel the provider syncs through;
    ``on_open`` is called with it once the provider runs, before the sync is
    awaited (:data:`TIMEOUT` for the connect and for the sync). ``keepalive_s``
    pings a connection that must notice a silent network. Failures raise as
    they come (:func:`room_failure` explains them).
    """
    import anyio
    import httpx
    import httpx_ws
    from pycrdt import Provider

    ping: dict[str, Any] = {}
    if keepalive_s is not None:
        ping = {
            "keepalive_ping_interval_seconds": keepalive_s,
            "keepalive_ping_timeout_seconds": keepalive_s,
        }
    # no cancel scope around the contexts entered here: their task groups
    # outlive the sync (the connect is bounded by httpx's timeout)
    async with httpx.AsyncClient(timeout=TIMEOUT) as client:
        connect: Any = httpx_ws.aconnect_ws(
            url, client, headers=bearer_headers(token), **ping
        )
        async with connect as websocket:
            opened = channel(websocket, urlsplit(url).path)
            provider = Provider(doc, opened, log=log)
            async with provider:
                on_open(opened)
                with anyio.fail_after(TIMEOUT):
                    await provider.synced.wait()
                yield opened


def single_error(exc: BaseException) -> BaseException:
    """The one exception inside (nested) task-group exception groups."""
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def refusal(exc: BaseException) -> str | None:
    """Why the server refused the websocket (``HTTP 403: wrong or missing
    token, …``); ``None`` when the failure was no refusal."""
    import httpx_ws

    while inner := getattr(exc, "exceptions", None):  # the first, in groups
        exc = inner[0]
    if not isinstance(exc, httpx_ws.WebSocketUpgradeError):
        return None
    status = exc.response.status_code
    return f"HTTP {status}: {refusal_reason(status)}"


def room_failure(exc: BaseException, url: str) -> BaseException:
    """A connection failure as one clear :class:`ShareError`; others unchanged."""
    import httpx
    import httpx_ws

    refused = refusal(exc)
    if refused is not None:
        status, _, reason = refused.partition(": ")
        return ShareError(f"{url} refused the connection ({status}): {reason}")
    exc = single_error(exc)
    if isinstance(exc, TimeoutError):
        return ShareError(
            f"{url} did not answer, sync or acknowledge within "
            f"{TIMEOUT:.0f} s; the answer may not have landed"
        )
    if isinstance(exc, (httpx.HTTPError, httpx_ws.HTTPXWSException, OSError)):
        return ShareError(f"cannot reach {url}: {exc or type(exc).__name__}")
    return exc
