""" "Will be sent": Hint diagnostics and the Submit lens count, through the server."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_to_str
from tests.lsp.editor_client import start_editor

SNAPSHOT = """---
agent_doc_session: 11111111-2222-4333-8444-555555555555
---
<!-- agent:exchange patch=append -->
## User

first question

### Re: first question

an answer
<!-- /agent:exchange -->
"""


def _project(editor: Editor, tmp_path: Path) -> tuple[str, Path]:
    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True, exist_ok=True)
    doc = root / "plan.md"
    doc.write_text(SNAPSHOT)
    StateStore.for_document(doc).save_snapshot(doc, SNAPSHOT)
    return doc.as_uri(), doc


def _hints(diags: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == code]


async def _submit_title(editor: Editor, uri: str) -> str:
    lenses = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    (submit,) = [
        lens.command.title
        for lens in lenses or []
        if lens.command and lens.command.command == "agentDoc.route"
    ]
    return submit


async def test_typed_lines_are_marked_as_unsent_hints(editor: Editor, tmp_path: Path):
    uri, _doc = _project(editor, tmp_path)
    editor.open(uri, SNAPSHOT)
    assert _hints(await editor.diagnostics(uri, version=1), "unsent") == []
    assert await _submit_title(editor, uri) == "Submit · nothing new"
    editor.type(uri, 10, 0, "a follow-up\nand more\n")  # before the close marker
    diags = await editor.diagnostics(uri)
    (hint,) = _hints(diags, "unsent")
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert hint.source == "agent-doc"
    assert hint.message == "will be sent"
    assert range_to_str(hint.range) == "10:0-11:8"
    assert await _submit_title(editor, uri) == "Submit · 1 change (+2 −0 lines)"


async def test_comments_are_private_and_not_counted(editor: Editor, tmp_path: Path):
    uri, _doc = _project(editor, tmp_path)
    editor.open(uri, SNAPSHOT)
    await editor.diagnostics(uri, version=1)
    editor.type(uri, 10, 0, "<!-- note to self -->\n")
    diags = await editor.diagnostics(uri)
    assert _hints(diags, "unsent") == []
    (private,) = _hints(diags, "private")
    assert private.message == "private, not sent"
    assert private.severity == types.DiagnosticSeverity.Hint
    assert range_to_str(private.range) == "10:0-10:21"
    assert await _submit_title(editor, uri) == "Submit · nothing new"


async def test_removed_and_changed_lines_count_both_ways(
    editor: Editor, tmp_path: Path
):
    uri, _doc = _project(editor, tmp_path)
    editor.open(uri, SNAPSHOT)
    await editor.diagnostics(uri, version=1)
    editor.replace(
        uri,
        types.Range(
            start=types.Position(line=6, character=0),
            end=types.Position(line=7, character=0),
        ),
        "",
    )  # the person deletes "first question" …
    editor.type(uri, 9, 0, "so: ")  # … and edits "an answer" (now line 9)
    diags = await editor.diagnostics(uri)
    removal, change = _hints(diags, "unsent")
    assert removal.message == "will be sent: 1 line removed here"
    assert range_to_str(removal.range) == "6:0-6:0"  # the blank line after it
    assert range_to_str(change.range) == "9:0-9:13"
    title = await _submit_title(editor, uri)
    assert title == "Submit · 2 changes (+1 −2 lines)"


async def test_a_new_snapshot_clears_the_marks(editor: Editor, tmp_path: Path):
    uri, doc = _project(editor, tmp_path)
    editor.open(uri, SNAPSHOT)
    await editor.diagnostics(uri, version=1)
    editor.type(uri, 10, 0, "sent soon\n")
    assert _hints(await editor.diagnostics(uri), "unsent")
    StateStore.for_document(doc).save_snapshot(doc, editor.text(uri))
    editor.type(uri, 0, 0, "")  # any change re-runs the diagnostics
    await editor.wait_for(
        lambda: (
            editor.published[-1].version == editor.version(uri)
            and not _hints(list(editor.published[-1].diagnostics), "unsent")
        ),
        what="marks cleared after the snapshot moved",
    )
    assert await _submit_title(editor, uri) == "Submit · nothing new"


def test_the_recheck_after_a_status_poll_does_not_join_the_text(tmp_path: Path):
    """The recheck runs after every agent-status poll: it reads the buffer's
    path (its head), never the whole text of a long document, and still
    re-runs the diagnostics when the snapshot file changed."""
    import asyncio

    from agent_doc_lsp.fast_document import FastTextDocument
    from agent_doc_lsp.features import unsent
    from agent_doc_lsp.server import create_server

    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True)
    doc = root / "plan.md"
    doc.write_text(SNAPSHOT)
    StateStore.for_document(doc).save_snapshot(doc, SNAPSHOT)
    server = create_server()
    server.protocol.use_fast_workspace()  # as initialize makes it
    loop = asyncio.new_event_loop()
    server.loop = loop
    uri = doc.as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=SNAPSHOT)  # fmt: skip
    server.workspace.put_text_document(item)
    pos = types.Position(line=10, character=0)
    server.workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        types.TextDocumentContentChangePartial(
            range=types.Range(start=pos, end=pos), text="typed\n"
        ),
    )
    document = server.workspace.get_text_document(uri)
    assert isinstance(document, FastTextDocument)
    assert document._text is not None
    try:
        state = unsent.state_of(server)
        state.summaries[uri] = (
            2,
            "an older snapshot",
            unsent.UnsentSummary(True, 0, 0, 0, ()),
        )
        unsent.recheck(server, uri)
        assert not document._text.joined  # no join of the text for its path
        assert uri in server.diagnostic_timers  # the snapshot moved: re-run
    finally:
        for timer in server.diagnostic_timers.values():
            timer.cancel()
        loop.close()


async def test_prose_typed_in_a_long_document_is_marked_without_joining_its_text(
    client: LanguageClient, tmp_path: Path
):
    """issue 37 item 3: the debounced run after prose keystrokes reads the
    server's chunks through a view: the marks are right and no version is
    joined (each join is logged at debug level; a folding request, which
    reads the whole text, shows that the log is on)."""
    root = tmp_path / "ws"
    root.mkdir()
    editor = await start_editor(
        client, root=root, settings={"logLevel": "debug", "diagnosticsDebounceMs": 50}
    )
    turns = "".join(f"### Re: q{n}\n\nanswer {n} 🚀 text\n\n" for n in range(6000))
    text = SNAPSHOT.replace(
        "an answer\n", "an answer\n\n" + turns + "## User\n\nlast\n"
    )
    assert len(text) > 3 * 65536  # several chunks
    doc = root / "plan.md"
    doc.write_text(text)
    StateStore.for_document(doc).save_snapshot(doc, text)
    uri = doc.as_uri()
    editor.open(uri, text)
    assert _hints(await editor.diagnostics(uri, version=1), "unsent") == []
    line = text.count("\n", 0, text.rindex("last\n"))

    def joins() -> list[str]:
        return [m.message for m in client.log_messages if "joined a text" in m.message]

    editor.type(uri, line, 4, ",")
    await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await editor.wait_for(lambda: joins(), what="the folding request's join logged")
    before = len(joins())
    for column, char in enumerate(" and more", start=5):
        editor.type(uri, line, column, char)
    diags = await editor.diagnostics(uri)
    (hint,) = _hints(diags, "unsent")
    assert range_to_str(hint.range) == f"{line}:0-{line}:14"
    assert editor.text(uri).splitlines()[line] == "last, and more"
    assert len(joins()) == before  # the run read the chunks in place
