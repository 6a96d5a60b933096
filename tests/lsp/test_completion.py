"""textDocument/completion in the frontmatter and inside component markers."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_to_str

DOC = """---
agent_doc_format: te
agent_doc_session: x
ag
---
<!-- agent:st -->
<!-- agent:mine -->
<!-- /agent:mine -->
<!-- agent:status patch=ap -->
<!-- agent:log  -->
plain text
"""


async def _complete(editor: Editor, uri: str, line: int, character: int):
    result = await editor.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert isinstance(result, types.CompletionList)
    return {item.label: item for item in result.items}


@pytest.mark.parametrize(
    ("line", "character", "expected", "absent", "replaced"),
    [
        pytest.param(
            1, 20, {"template", "inline"}, {"crdt"}, "1:18-1:20", id="fm-value"
        ),
        pytest.param(
            3,
            2,
            {"agent", "agent_doc_write", "model"},
            {"agent_doc_session", "mode"},
            "3:0-3:2",
            id="fm-key",
        ),
        pytest.param(
            5,
            13,
            {"exchange", "status", "mine", "pending"},
            {"boundary"},
            "5:11-5:13",
            id="component-name",
        ),
        pytest.param(
            8, 25, {"replace", "append", "prepend"}, set(), "8:24-8:26", id="mode"
        ),
        pytest.param(
            9, 16, {"patch=", "max_lines="}, {"mode="}, "9:16-9:16", id="attrs"
        ),
        pytest.param(10, 3, set(), {"patch="}, "", id="body"),
    ],
)
async def test_completion_contexts(
    editor: Editor, line, character, expected, absent, replaced
):
    uri = f"file:///tmp/complete-{line}.md"
    editor.open(uri, DOC)
    items = await _complete(editor, uri, line, character)
    assert expected <= set(items)
    assert not absent & set(items)
    if expected:
        edit = next(iter(items[sorted(expected)[0]].text_edit for _ in [0]))
        assert isinstance(edit, types.TextEdit)
        assert range_to_str(edit.range) == replaced


async def test_key_completion_inserts_key_and_colon(editor: Editor):
    uri = "file:///tmp/complete-insert.md"
    editor.open(uri, DOC)
    item = (await _complete(editor, uri, 3, 2))["agent_doc_write"]
    assert isinstance(item.text_edit, types.TextEdit)
    assert item.text_edit.new_text == "agent_doc_write: "
    assert item.documentation is not None
