"""The language server's ACP turn with an agent reached over a WebSocket.

The same host as a local ACP agent (``agentDoc.runAgent``, the answer streamed
into the buffer), but the agent is the stand-in behind the ACP SDK's own
WebSocket server (``tests/acp_ws_standin.py``, a real uvicorn process that
checks the bearer token): ``transport = "acp-ws"`` with a ``token_file``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcServerError
from pytest_lsp import LanguageClient

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_ws_standin import TOKEN
from tests.acp_ws_standin import configure_ws
from tests.acp_ws_standin import start_agent_server
from tests.acp_ws_standin import token_file
from tests.lsp.acp_editor import start


async def test_a_websocket_agent_streams_into_the_buffer(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    server = start_agent_server(tmp_path)
    try:
        configure_ws(server.url, token_file(tmp_path, TOKEN))
        _, uri = session.open_document()
        result = await asyncio.wait_for(session.run(uri), 60)
        text = session.editor.text(uri)
        assert result["target"] == "server"
        assert result["interrupted"] is False
        assert text.index("What is 2 + 2?") < text.index("Hello from ACP.")
        assert text.count("Hello from ACP.") == 1
        new = next(c for c in server.calls() if c["method"] == "session/new")
        assert f"resume: {new['session_id']}" in text
        assert result["sessionId"] == new["session_id"]
    finally:
        assert "refused" not in server.stop()


async def test_a_wrong_token_is_refused_and_the_buffer_is_unchanged(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    server = start_agent_server(tmp_path)
    try:
        configure_ws(server.url, token_file(tmp_path, "not-the-token"))
        doc, uri = session.open_document()
        with pytest.raises(JsonRpcServerError, match="HTTP 403"):
            await asyncio.wait_for(session.run(uri), 60)
        assert session.editor.text(uri) == DOC
        assert doc.read_text() == DOC
        assert server.calls() == []
    finally:
        assert "refused: wrong token" in server.stop()
