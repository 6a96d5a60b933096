"""Diagnostics runs: debounced on open too, checked off the event loop, never
published for a version the document has left.

The over-the-wire test uses the real server; the race tests drive one in
process, with a problem provider that holds the worker thread until the test
(running on the event loop meanwhile) releases it.
"""

from __future__ import annotations

import asyncio
import threading

from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc.editor.model import Problem
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.features import diagnostics
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.server import create_server
from tests.lsp.editor_client import start_editor

URI = "file:///tmp/runs.md"


async def test_open_is_debounced_like_a_change(client: LanguageClient):
    editor = await start_editor(client, settings={"diagnosticsDebounceMs": 1000})
    uri = "file:///tmp/diag-open.md"
    editor.open(uri, "<!-- agent:a -->\n")
    editor.append(uri, "<!-- /agent:a -->\n")  # typed before the debounce ends
    assert await editor.diagnostics(uri, 2) == []
    assert [p.version for p in editor.published if p.uri == uri] == [2]


class _Gate:
    """A problem provider that blocks the worker thread until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.seen: list[int | None] = []

    def __call__(self, ls: AgentDocLanguageServer, buffer: Buffer) -> list[Problem]:
        self.seen.append(buffer.version)
        self.entered.set()
        assert self.release.wait(30)
        return []


def _server(gate: _Gate) -> tuple[AgentDocLanguageServer, list[int | None]]:
    server = create_server()
    server.protocol.use_fast_workspace()  # as initialize makes it
    server.loop = asyncio.get_running_loop()
    server.hooks.problems[:] = [gate]
    published: list[int | None] = []
    server.text_document_publish_diagnostics = (  # type: ignore[method-assign]
        lambda params: published.append(params.version)
    )
    server.workspace.put_text_document(
        types.TextDocumentItem(
            uri=URI, language_id="markdown", version=1, text="<!-- agent:a -->\n"
        )
    )
    return server, published


def _type(server: AgentDocLanguageServer, version: int) -> None:
    pos = types.Position(line=1, character=0)
    server.workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(uri=URI, version=version),
        types.TextDocumentContentChangePartial(
            range=types.Range(start=pos, end=pos), text="x"
        ),
    )


async def test_a_run_overtaken_by_a_change_is_dropped_and_the_newest_checked():
    gate = _Gate()
    server, published = _server(gate)
    diagnostics.start(server, URI)
    assert await asyncio.to_thread(gate.entered.wait, 30)
    # the loop is free while the run checks: the keystroke is handled now
    _type(server, 2)
    diagnostics.start(server, URI)  # its debounce fired: waits for the first run
    gate.entered.clear()
    gate.release.set()
    await diagnostics.state_of(server).tasks[URI]
    assert gate.seen == [1, 2]
    assert published == [2]  # version 1 was never published


async def test_closing_cancels_the_run():
    gate = _Gate()
    server, published = _server(gate)
    diagnostics.start(server, URI)
    assert await asyncio.to_thread(gate.entered.wait, 30)
    task = diagnostics.state_of(server).tasks[URI]
    server.workspace.remove_text_document(URI)
    diagnostics.clear(server, URI)
    gate.release.set()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert published == [None]  # only the clearing (no version)
