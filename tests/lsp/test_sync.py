"""Text synchronization: incremental edits under each position encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

DOC = "# Título 😀\n\n<!-- agent:status -->\nnaïve 😀 text\n<!-- /agent:status -->\n"


async def test_server_announces_name_version_and_incremental_sync(editor: Editor):
    result = editor.init_result
    assert result is not None
    assert result.server_info is not None
    assert result.server_info.name == "agent-doc-lsp"
    sync = result.capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16


@pytest.mark.parametrize(
    ("offered", "expected"),
    [
        pytest.param(None, "utf-16", id="default-utf16"),
        pytest.param(["utf-8", "utf-16"], "utf-8", id="utf8"),
        pytest.param(["utf-32"], "utf-32", id="utf32"),
        pytest.param(["utf-16"], "utf-16", id="utf16-explicit"),
    ],
)
async def _test_incremental_edits_after_emoji_land_in_the_right_place(
    client: LanguageClient, offered: list[str] | None, expected: str
):
    editor = await start_editor(client, encodings=offered)
    assert editor.encoding == expected
    uri = "file:///tmp/sync-enc.md"
    editor.open(uri, DOC)
    # after "naïve 😀" on line 3: widths differ per encoding
    column = {"utf-8": len("naïve 😀".encode()), "utf-16": 8, "utf-32": 7}[expected]
    editor.type(uri, 3, column, " ✅X")
    editor.type(uri, 0, {"utf-8": 14, "utf-16": 11, "utf-32": 10}[expected], "!")
    # delete the "é" of "Título"? -> replace "í" (1 unit except utf-8: 2)
    width = 2 if expected == "utf-8" else 1
    editor.replace(
        uri,
        types.Range(
            start=types.Position(line=0, character=4),
            end=types.Position(line=0, character=4 + width),
        ),
        "i",
    )
    assert editor.text(uri).splitlines()[3] == "naïve 😀 ✅X text"
    assert editor.text(uri).splitlines()[0] == "# Titulo 😀!"
    # the server's copy equals the editor's: a symbol range ends at the close
    # marker line and hover/rename see the same text (checked through folding)
    result = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    assert [(r.start_line, r.end_line) for r in result] == [(2, 4)]
