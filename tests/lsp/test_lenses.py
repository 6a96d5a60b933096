"""textDocument/codeLens: Submit, Claim, Commit, Diff on session documents."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

SESSION = "---\nagent_doc_session: abc\n---\nhello\n"


async def _lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(result or [])


def _session_lenses(lenses: list[types.CodeLens]) -> list[tuple[str, str]]:
    wanted = {"agentDoc.route", "agentDoc.claim", "agentDoc.commit", "agentDoc.diff"}
    return [
        (lens.command.title, lens.command.command)
        for lens in lenses
        if lens.command is not None and lens.command.command in wanted
    ]


async def test_session_document_gets_the_four_lenses(editor: Editor):
    uri = "file:///tmp/lens.md"
    editor.open(uri, SESSION)
    lenses = await _lenses(editor.client, uri)
    assert _session_lenses(lenses) == [
        ("Submit", "agentDoc.route"),
        ("Claim", "agentDoc.claim"),
        ("Commit", "agentDoc.commit"),
        ("Diff", "agentDoc.diff"),
    ]
    for lens in lenses:
        if lens.command and lens.command.command == "agentDoc.diff":
            assert list(lens.command.arguments or []) == [{"uri": uri}]
            assert lens.range.start.line == 0


async def test_component_document_counts_as_session(editor: Editor):
    uri = "file:///tmp/lens-comp.md"
    editor.open(uri, "<!-- agent:status -->\n<!-- /agent:status -->\n")
    assert len(_session_lenses(await _lenses(editor.client, uri))) == 4


async def test_plain_markdown_gets_none(editor: Editor):
    uri = "file:///tmp/lens-plain.md"
    editor.open(uri, "# notes\n`<!-- agent:x -->`\n")
    assert _session_lenses(await _lenses(editor.client, uri)) == []


async def test_setting_turns_them_off(client: LanguageClient):
    editor = await start_editor(client, initialization_options={"codeLens": False})
    uri = "file:///tmp/lens-off.md"
    editor.open(uri, SESSION)
    assert _session_lenses(await _lenses(client, uri)) == []
