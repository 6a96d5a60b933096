"""prepareRename / rename of a component renames both markers."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_to_str

DOC = "<!-- agent:notes patch=append -->\n😀 x\n<!-- /agent:notes -->\nnotes\n"


async def test_prepare_rename_returns_the_name(editor: Editor):
    uri = "file:///tmp/rename-prep.md"
    editor.open(uri, DOC)
    result = await editor.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=2, character=3),
        )
    )
    assert isinstance(result, types.PrepareRenamePlaceholder)
    assert result.placeholder == "notes"
    assert range_to_str(result.range) == "2:12-2:17"
    nothing = await editor.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=3, character=1),
        )
    )
    assert nothing is None


async def test_rename_changes_both_markers_only(editor: Editor):
    uri = "file:///tmp/rename.md"
    editor.open(uri, DOC)
    edit = await editor.client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=13),
            new_name="journal",
        )
    )
    assert edit is not None
    result = editor.handle_apply_edit(types.ApplyWorkspaceEditParams(edit=edit))
    assert result.applied
    assert editor.text(uri) == (
        "<!-- agent:journal patch=append -->\n😀 x\n<!-- /agent:journal -->\nnotes\n"
    )


async def test_rename_to_an_invalid_name_is_refused(editor: Editor):
    uri = "file:///tmp/rename-bad.md"
    editor.open(uri, DOC)
    with pytest.raises(JsonRpcInvalidParams, match="invalid component name"):
        await editor.client.text_document_rename_async(
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=13),
                new_name="-bad name",
            )
        )
