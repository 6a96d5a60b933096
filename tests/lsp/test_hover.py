"""textDocument/hover on component markers and frontmatter keys."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_to_str

DOC = """---
agent_doc_write: crdt
mode: append
---
<!-- agent:status max_lines=3 -->
x
<!-- /agent:status -->
<!-- agent:exchange -->
<!-- /agent:exchange -->
"""


async def _hover(
    editor: Editor, uri: str, line: int, character: int
) -> types.Hover | None:
    return await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


def _text(hover: types.Hover | None) -> str:
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_component_hover_shows_values_and_their_sources(
    editor: Editor, tmp_path: Path
):
    root = tmp_path / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    (root / ".agent-doc" / "components.toml").write_text('[status]\nmode = "prepend"\n')
    uri = (root / "doc.md").as_uri()
    editor.open(uri, DOC)
    hover = await _hover(editor, uri, 4, 5)
    text = _text(hover)
    assert "`status`" in text
    assert "`prepend` (components.toml)" in text
    assert "`3` (last 3 lines; inline)" in text
    assert hover is not None
    assert hover.range is not None
    assert range_to_str(hover.range) == "4:0-4:33"
    closing = _text(await _hover(editor, uri, 8, 4))
    assert "`append` (default)" in closing
    assert "`0` (unlimited; default)" in closing


async def test_frontmatter_key_hover(editor: Editor):
    uri = "file:///tmp/hover-fm.md"
    editor.open(uri, DOC)
    text = _text(await _hover(editor, uri, 1, 3))
    assert "agent_doc_write" in text
    assert "`merge`" in text
    deprecated = _text(await _hover(editor, uri, 2, 1))
    assert "Deprecated" in deprecated
    assert "agent_doc_format" in deprecated


async def test_no_hover_on_plain_text(editor: Editor):
    uri = "file:///tmp/hover-none.md"
    editor.open(uri, DOC)
    assert await _hover(editor, uri, 5, 0) is None
