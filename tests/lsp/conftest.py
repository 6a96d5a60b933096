"""The editor-like client fixture for the end-to-end language server tests.

``client`` is a pytest-lsp client running ``python -m agent_doc_lsp`` over stdio
(not yet initialized); ``editor`` initializes it with the default capabilities
(UTF-16, versioned workspace edits, applyEdit handler rejecting stale versions).
Tests needing other capabilities call :func:`tests.lsp.editor_client.start_editor`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from pytest_lsp import ClientServerConfig
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

SERVER = [sys.executable, "-m", "agent_doc_lsp"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in tests/lsp as ``lsp``."""
    for item in items:
        if "tests/lsp/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.lsp)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A started, not yet initialized client; shut down after the test."""
    yield lsp_client
    if lsp_client.capabilities is None:
        # never initialized (the test failed early): the server would wait forever
        process = lsp_client._server
        if process is not None and process.returncode is None:
            process.kill()
        return
    await asyncio.wait_for(lsp_client.shutdown_session(), 10)


@pytest_asyncio.fixture
async def editor(client: LanguageClient, tmp_path: Path) -> Editor:
    """An initialized editor (UTF-16) with ``tmp_path / "ws"`` as workspace."""
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    return await start_editor(client, root=root)
