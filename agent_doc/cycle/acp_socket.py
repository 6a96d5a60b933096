"""An ACP agent reached over a WebSocket (``transport = "acp-ws"``).

The connection is the ACP SDK's experimental WebSocket transport
(:func:`acp.ws.create_websocket_stream`, JSON-RPC text frames). The token, read
from ``token_file`` or ``token_env`` when the turn starts, goes in an
``Authorization: Bearer`` header, never in the URL; a URL that is not loopback
is refused without one (checked when the config is read and again here). A
refused token, an unreachable or silent endpoint each end the turn with one
line naming the agent and its URL, before anything is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from agent_doc.errors import AgentDocError
from agent_doc.errors import AgentError
from agent_doc.store.access_rules import check_websocket_url
from agent_doc.store.access_rules import read_token_file

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.store.config import AgentCommand

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
    """The SDK's WebSocket transport, remembering whether it is still open."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self.open = True
        """False once the agent's end closed (or :meth:`close` ran)."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON-RPC message."""
        await self._transport.send(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next JSON-RPC message, ``None`` once the socket closed."""
        message: dict[str, Any] | None = await self._transport.receive()
        if message is None:
            self.open = False
        return message

    async def close(self) -> None:
        """Close the socket (idempotent)."""
        self.open = False
        with contextlib.suppress(Exception):
            await self._transport.close()


async def connect_socket(name: str, agent: AgentCommand) -> SocketLink:
    """Open the WebSocket of ``agent``; an ``AgentError`` says why it cannot."""
    from acp.ws import create_websocket_stream
    from websockets.exceptions import InvalidHandshake
    from websockets.exceptions import InvalidStatus
    from websockets.exceptions import InvalidURI

    token = agent_token(name, agent)
    url = check_websocket_url(
        agent.url, has_token=token is not None, where=f"[agents.{name}]"
    )
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        transport = await asyncio.wait_for(
            create_websocket_stream(url, headers=headers), CONNECT_TIMEOUT_S
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
    return SocketLink(transport)
