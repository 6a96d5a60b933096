"""textDocument/foldingRange: frontmatter and components."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.editor_client import Editor


async def test_folds_frontmatter_and_each_multi_line_component(editor: Editor):
    uri = "file:///tmp/folding.md"
    editor.open(
        uri,
        "---\nagent_doc_session: x\n---\n"
        "<!-- agent:a -->\n<!-- agent:b -->\nx\n<!-- /agent:b -->\n<!-- /agent:a -->\n"
        "~~~\n<!-- agent:c -->\n<!-- /agent:c -->\n~~~\n",
    )
    result = await editor.client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    assert [(r.start_line, r.end_line) for r in result] == [(0, 2), (3, 7), (4, 6)]
