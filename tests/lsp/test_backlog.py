"""The backlog in the editor, through the real server over stdio: malformed
item lines, state toggles as code actions (the id kept), id completion, the
``agentDoc.backlog`` command, and the CLI's operations landing in the open
buffer as one minimal edit while the person's typing is kept."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from agent_doc_lsp import commands
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_from_str
from tests.lsp.editor_client import start_editor
from tests.lsp.test_live_write import opened
from tests.lsp.test_live_write import registered
from tests.lsp.test_live_write import run_cli

DOC = (
    "---\nagent_doc_session: 11111111-2222-3333-4444-555555555555\n"
    "agent_doc_format: template\n---\n# Work\n\n"
    "<!-- agent:backlog -->\n"
    "- [ ] [#a1] write the parser\n"
    "- [/] [#g1] ship 1.0\n"
    "<!-- /agent:backlog -->\n\n"
    "<!-- agent:exchange -->\nGo on.\n<!-- /agent:exchange -->\n"
)
A1_LINE = 7  # 0-based line of "- [ ] [#a1] write the parser"


@pytest.fixture
async def ed(client: LanguageClient, project: Path) -> Editor:
    return await start_editor(client, root=project)


async def open_doc(ed: Editor, project: Path) -> Path:
    doc = project / "work.md"
    doc.write_text(DOC)
    ed.open(doc.as_uri(), DOC)
    await registered(ed, project)
    await opened(project, doc)
    return doc


async def actions(ed: Editor, uri: str, rng: str) -> list[types.CodeAction]:
    result = await ed.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=range_from_str(rng),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def execute(client: LanguageClient, **args: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=commands.BACKLOG, arguments=[args])
        ),
        20,
    )


async def test_a_malformed_item_line_gets_a_diagnostic(ed: Editor, project: Path):
    uri = (project / "bad.md").as_uri()
    ed.open(uri, DOC.replace("- [/] [#g1]", "- [?] [#g1]"))
    found = [d for d in await ed.diagnostics(uri) if d.code == "backlog-item"]
    assert len(found) == 1
    assert "[?] is not a box" in found[0].message
    assert found[0].range.start.line == A1_LINE + 1
    ed.open(uri, DOC.replace("[#g1]", "[#a1]"), version=2)
    dup = [d for d in await ed.diagnostics(uri) if d.code == "backlog-id"]
    assert [d.message for d in dup] == ["id #a1 is used twice in the backlog"]


async def test_toggling_an_item_keeps_its_id(ed: Editor, project: Path):
    uri = (project / "toggle.md").as_uri()
    ed.open(uri, DOC)
    found = await actions(ed, uri, f"{A1_LINE}:3-{A1_LINE}:3")
    titles = [a.title for a in found]
    assert titles == ["Mark done [x] (keeps the id)", "Mark gated [/] (keeps the id)"]
    assert found[0].edit is not None
    assert ed.handle_apply_edit(
        types.ApplyWorkspaceEditParams(edit=found[0].edit)
    ).applied
    assert "- [x] [#a1] write the parser\n" in ed.text(uri)
    gated = await actions(ed, uri, f"{A1_LINE + 1}:0-{A1_LINE + 1}:0")
    assert [a.title for a in gated] == [
        "Mark done [x] (keeps the id)",
        "Back to open [ ] (keeps the id)",
    ]
    done = await actions(ed, uri, f"{A1_LINE}:3-{A1_LINE}:3")
    assert done == []  # done is the end of the matrix (preflight reaps it)
    assert await actions(ed, uri, "12:0-12:0") == []  # the exchange: no item


async def test_ids_complete_after_a_hash(ed: Editor, project: Path):
    uri = (project / "complete.md").as_uri()
    text = DOC.replace("Go on.\n", "Go on with #\n")
    ed.open(uri, text)
    line = text.split("\n").index("Go on with #")
    result = await ed.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=len("Go on with #")),
        )
    )
    assert isinstance(result, types.CompletionList)
    by_label = {item.label: item for item in result.items}
    assert set(by_label) == {"a1", "g1"}
    assert by_label["g1"].detail == "gated · backlog"


async def test_the_command_changes_the_buffer_and_keeps_typing(
    ed: Editor, client: LanguageClient, project: Path
):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    ed.type(uri, 13, 0, "typed, unsaved\n")  # in the exchange
    result = await execute(client, uri=uri, op="add", text="id=n1 new work")
    assert (result["id"], result["changed"], result["target"]) == ("n1", True, "server")
    text = ed.text(uri)
    assert "<!-- agent:backlog -->\n- [ ] [#n1] new work\n- [ ] [#a1]" in text
    assert "typed, unsaved\n" in text
    assert doc.read_text() == DOC  # the editor owns the file
    await execute(client, uri=uri, op="done", id="a1")
    assert "- [x] [#a1] write the parser\n" in ed.text(uri)
    with pytest.raises(Exception, match="cannot ungate an item that is open"):
        await execute(client, uri=uri, op="ungate", id="n1")
    # the person's change from the editor: the snapshot does not follow
    assert StateStore(project).load_snapshot(doc) is None


async def test_the_cli_lands_in_the_open_buffer(ed: Editor, project: Path):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    ed.type(uri, 13, 0, "typed while the agent works\n")
    code, err = await run_cli("backlog", "gate", str(doc), "a1", "--json")
    assert code == 0, err
    text = ed.text(uri)
    assert "- [/] [#a1] write the parser\n" in text
    assert "typed while the agent works\n" in text
    assert len(ed.applied) == 1  # one edit
    # a minimal edit: the box of that one line, nothing around it
    changes = ed.applied[0].edit.document_changes or []
    edits = [e for change in changes for e in getattr(change, "edits", [])]
    assert edits
    assert all(e.range.start.line == e.range.end.line == A1_LINE for e in edits)
    assert all(len(e.new_text) <= 3 for e in edits)
    assert doc.read_text() == DOC


async def test_write_with_backlog_options_lands_both_in_the_buffer(
    ed: Editor, project: Path
):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    ed.type(uri, 13, 0, "typed, unsaved\n")
    answer = (
        "<!-- patch:exchange -->\nThe parser is written.\n<!-- /patch:exchange -->\n"
    )
    code, err = await run_cli(
        "write", str(doc), "--backlog-done", "a1", "--backlog-add", "id=t1 add tests",
        stdin=answer,
    )  # fmt: skip
    assert code == 0, err
    text = ed.text(uri)
    assert text.count("The parser is written.") == 1
    assert "typed, unsaved\n" in text
    assert "<!-- agent:backlog -->\n- [ ] [#t1] add tests\n- [x] [#a1] write" in text
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot is not None
    assert "- [x] [#a1] write the parser" in snapshot  # the agent's own change
    assert "- [ ] [#t1] add tests" in snapshot
    assert doc.read_text() == DOC
