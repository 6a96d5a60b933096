"""An ACP agent reached over a WebSocket (``transport = "acp-ws"``).

The wire is the ACP SDK's experimental WebSocket transport (one JSON-RPC
message per text frame, binary frames ignored, as :mod:`acp.ws.client`), opened
here with ``websockets`` directly: the SDK's ``create_websocket_stream`` keeps
the library's 1 MiB message limit, and one large answer chunk or
``fs/write_text_file`` would end the turn; :data:`MESSAGE_LIMIT` is the stdio
transport's line limit instead. :class:`SocketLink` is an ``acp`` Transport
(``send``/``receive``/``close``) for ``acp.connect_to_agent``. The token, read
from ``token_file`` or ``token_env`` when the turn starts, goes in an
``Authorization: Bearer`` header, never in the URL; a URL that is not loopback
is refused without one (checked when the config is read and again here). A
refused token, an unreachable or silent endpoint each end the turn with one
line naming the agent and its URL, before anything is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import Any

from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError
from agent_doc.store.access_rules import check_websocket_url
from agent_doc.store.access_rules import read_token_file

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.store.config import AgentCommand

MESSAGE_LIMIT = 50 * 1024 * 1024
"""Largest JSON-RPC message accepted from the agent (the stdio line limit)."""
CONNECT_TIMEOUT_S = 10.0
"""Seconds the WebSocket handshake may take before the agent counts as unreachable."""


def agent_token(name: str, agent: AgentCommand) -> str | None:
    """The bearer token of ``agent`` (``None`` when it has none configured)."""
    if agent.token_file is not None:
        try:
            return read_token_file(agent.token_file)
        except AgentDocError as exc:
            raise AgentError(f"agent '{name}': {exc}") from None
    if agent.token_env is not None:
        token = os.environ.get(agent.token_env, "").strip()
        if not token:
            raise AgentError(
                f"agent '{name}': the environment variable {agent.token_env} "
                "(token_env) is not set or empty"
            )
        return token
    return None


class SocketLink:
    """JSON-RPC messages over an open WebSocket, remembering whether it is open."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self.open = True
        """False once the agent's end closed (or :meth:`close` ran)."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON-RPC message (one text frame)."""
        from websockets.exceptions import ConnectionClosed

        try:
            await self._socket.send(json.dumps(message, separators=(",", ":")))
        except ConnectionClosed as exc:
            self.open = False
            raise ConnectionError("the agent's WebSocket is closed") from exc

    async def receive(self) -> dict[str, Any] | None:
        """The next JSON-RPC message, ``None`` once the socket closed."""
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                frame = await self._socket.recv()
            except ConnectionClosed:
                self.open = False
                return None
            if isinstance(frame, bytes):
                continue  # the transport carries text frames only
            with contextlib.suppress(ValueError):
                message = json.loads(frame)
                if isinstance(message, dict):
                    return message

    async def close(self) -> None:
        """Close the socket (idempotent)."""
        self.open = False
        with contextlib.suppress(Exception):
            await self._socket.close()


async def connect_socket(name: str, agent: AgentCommand) -> SocketLink:
    """Open the WebSocket of ``agent``; an ``AgentError`` says why it cannot."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidHandshake
    from websockets.exceptions import InvalidStatus
    from websockets.exceptions import InvalidURI

    token = agent_token(name, agent)
    url = check_websocket_url(
        agent.url, has_token=token is not None, where=f"[agents.{name}]"
    )
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        socket = await asyncio.wait_for(
            connect(url, additional_headers=headers, max_size=MESSAGE_LIMIT),
            CONNECT_TIMEOUT_S,
        )
    except InvalidStatus as exc:
        status = exc.response.status_code
        why = " (wrong or missing token?)" if status in (401, 403) else ""
        raise AgentError(
            f"agent '{name}' at {url} refused the connection: HTTP {status}{why}"
        ) from None
    except (InvalidURI, InvalidHandshake) as exc:
        raise AgentError(f"agent '{name}' at {url}: {exc}") from None
    except asyncio.TimeoutError:
        raise AgentError(
            f"agent '{name}' at {url} did not answer within {CONNECT_TIMEOUT_S:g} s"
        ) from None
    except OSError as exc:
        raise AgentError(
            f"cannot reach agent '{name}' at {url}: {exc.strerror or exc}"
        ) from None
    return SocketLink(socket)
