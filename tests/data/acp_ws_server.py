"""The stand-in ACP agent served over the ACP SDK's WebSocket transport.

``acp_ws_server.py [SETTINGS]``: serves :class:`acp_agent.StandInAgent` (one
per connection) with the SDK's ASGI app (``acp.http.asgi.create_asgi_app``)
under uvicorn on 127.0.0.1, on a free port it prints as the first line of
stdout once listening. With ``ACP_WS_TOKEN`` set, a WebSocket upgrade must
carry ``Authorization: Bearer <token>`` (agent-doc's own token check,
``agent_doc.share.access``); any other is refused before the upgrade (HTTP
403) and logged on stderr as ``refused: <reason>``. SETTINGS is the stand-in's
settings file (see ``acp_agent.py``).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from typing import Any

import uvicorn
from acp.http.asgi import create_asgi_app
from acp_agent import StandInAgent

from agent_doc.share.access import bearer_token
from agent_doc.share.access import token_matches


def guarded(app: Any, token: str | None) -> Any:
    """``app`` behind the bearer-token check of a WebSocket upgrade."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and token is not None:
            given = bearer_token(scope.get("headers", []))
            if not token_matches(given, token):
                reason = "no token" if given is None else "wrong token"
                sys.stderr.write(f"refused: {reason}\n")
                sys.stderr.flush()
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
                return
        await app(scope, receive, send)

    return asgi


async def main() -> None:
    app = guarded(
        create_asgi_app(lambda _conn: StandInAgent()),
        os.environ.get("ACP_WS_TOKEN") or None,
    )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    print(listener.getsockname()[1], flush=True)
    await server.serve(sockets=[listener])


if __name__ == "__main__":
    asyncio.run(main())
