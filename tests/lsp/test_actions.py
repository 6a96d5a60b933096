"""textDocument/codeAction quick fixes, applied through the editor client."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_from_str


async def _fixes(editor: Editor, uri: str, rng: str) -> list[types.CodeAction]:
    diags = await editor.diagnostics(uri)
    result = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=range_from_str(rng),
            context=types.CodeActionContext(diagnostics=diags),
        )
    )
    assert result is not None
    return [a for a in result if isinstance(a, types.CodeAction)]


async def _apply(editor: Editor, action: types.CodeAction) -> None:
    assert action.edit is not None
    result = editor.handle_apply_edit(types.ApplyWorkspaceEditParams(edit=action.edit))
    assert result.applied


async def test_migrate_deprecated_field(editor: Editor):
    uri = "file:///tmp/act-migrate.md"
    editor.open(uri, "---\nmode: append\nsession: abc\nmodel: x\n---\nbody\n")
    (action,) = await _fixes(editor, uri, "1:0-1:0")
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.diagnostics
    assert action.diagnostics[0].code == "deprecated-field"
    await _apply(editor, action)
    assert editor.text(uri) == (
        "---\nagent_doc_session: abc\nmodel: x\nagent_doc_format: inline\n---\nbody\n"
    )
    assert await editor.diagnostics(uri) == []


async def test_close_unclosed_component_before_the_parent_close(editor: Editor):
    uri = "file:///tmp/act-close.md"
    editor.open(
        uri, "<!-- agent:outer -->\n<!-- agent:inner -->\ntext\n<!-- /agent:outer -->\n"
    )
    (action,) = [a for a in await _fixes(editor, uri, "1:3-1:3") if "inner" in a.title]
    await _apply(editor, action)
    assert editor.text(uri) == (
        "<!-- agent:outer -->\n<!-- agent:inner -->\ntext\n"
        "<!-- /agent:inner -->\n<!-- /agent:outer -->\n"
    )
    assert await editor.diagnostics(uri) == []


async def test_close_unclosed_component_at_end_of_document(editor: Editor):
    uri = "file:///tmp/act-close-end.md"
    editor.open(uri, "<!-- agent:tail -->\nlast line")
    (action,) = await _fixes(editor, uri, "0:0-0:0")
    await _apply(editor, action)
    assert editor.text(uri) == "<!-- agent:tail -->\nlast line\n<!-- /agent:tail -->\n"


async def test_remove_stale_boundaries_keeps_the_last(editor: Editor):
    uri = "file:///tmp/act-boundary.md"
    doc = (
        "<!-- agent:exchange -->\nq1\n<!-- agent:boundary:aaaaaaaa -->\nq2\n"
        "<!-- agent:boundary:bbbbbbbb -->\nq3\n<!-- agent:boundary:cccccccc -->\n"
        "<!-- /agent:exchange -->\n"
    )
    editor.open(uri, doc)
    (action,) = await _fixes(editor, uri, "2:5-2:5")
    await _apply(editor, action)
    assert editor.text(uri) == (
        "<!-- agent:exchange -->\nq1\nq2\nq3\n<!-- agent:boundary:cccccccc -->\n"
        "<!-- /agent:exchange -->\n"
    )


async def test_no_fix_where_there_is_no_problem(editor: Editor):
    uri = "file:///tmp/act-none.md"
    editor.open(uri, "---\nmode: append\n---\nplain\n")
    assert await _fixes(editor, uri, "3:0-3:2") == []


async def test_fix_edit_is_pinned_to_the_document_version(editor: Editor):
    uri = "file:///tmp/act-version.md"
    editor.open(uri, "<!-- agent:a -->\n")
    editor.append(uri, "x")
    (action,) = await _fixes(editor, uri, "0:0-0:0")
    assert action.edit is not None
    (change,) = action.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 2
