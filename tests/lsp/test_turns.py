"""Per-turn lenses: Diff this turn / Revert this turn, with real git commits."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import capabilities
from tests.lsp.editor_client import start_editor

DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:exchange -->\nFirst question?\n<!-- /agent:exchange -->\n"
)


def answer(heading: str, body: str) -> str:
    return f"<!-- patch:exchange -->\n### Re: {heading}\n\n{body}\n<!-- /patch:exchange -->\n"


async def execute(client: LanguageClient, command: str, **args: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[args])
        ),
        20,
    )


async def turn_lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    wanted = ("agentDoc.turnDiff", "agentDoc.revertTurn")
    return [lens for lens in lenses or [] if lens.command.command in wanted]


def type_before_close(editor: Editor, uri: str, text: str) -> None:
    line = editor.text(uri).split("\n").index("<!-- /agent:exchange -->")
    editor.type(uri, line, 0, text)


async def two_turns(editor: Editor, client: LanguageClient, doc: Path) -> str:
    """Open the document and run two agent turns, each committed."""
    uri = doc.as_uri()
    editor.open(uri, DOC)
    await execute(client, "agentDoc.write", uri=uri,
                  response=answer("First question?", "The answer is 42."))  # fmt: skip
    assert (await execute(client, "agentDoc.commit", uri=uri))["committed"]
    type_before_close(editor, uri, "Second question?\n")
    await execute(client, "agentDoc.write", uri=uri,
                  response=answer("Second question?", "Also 42."))  # fmt: skip
    assert (await execute(client, "agentDoc.commit", uri=uri))["committed"]
    return uri


def git_log(project: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(project), "log", "--format=%H"],
                         check=True, capture_output=True, text=True).stdout  # fmt: skip
    return out.split()


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "doc.md"
    path.write_text(DOC)
    return path


async def test_each_answer_gets_diff_and_revert_lenses(client, project, doc):
    editor = await start_editor(client, root=project)
    uri = await two_turns(editor, client, doc)
    lenses = await turn_lenses(client, uri)
    lines = editor.text(uri).split("\n")
    assert [(lines[lens.range.start.line], lens.command.title) for lens in lenses] == [
        ("### Re: First question?", "Diff this turn"),
        ("### Re: First question?", "Revert this turn"),
        ("### Re: Second question?", "Diff this turn"),
        ("### Re: Second question?", "Revert this turn"),
    ]
    assert list(lenses[2].command.arguments or []) == [
        {"uri": uri, "heading": "### Re: Second question?", "occurrence": 0}
    ]


async def test_diff_this_turn_is_the_commit_that_wrote_the_answer(client, project, doc):
    caps = capabilities()
    caps.window = types.WindowClientCapabilities(
        show_document=types.ShowDocumentClientCapabilities(support=True)
    )

    editor = await start_editor(client, root=project, client_caps=caps)
    uri = await two_turns(editor, client, doc)
    second, first = git_log(project)[:2]
    lens = (await turn_lenses(client, uri))[0]
    result = await execute(client, lens.command.command, **lens.command.arguments[0])
    assert result["sha"] == first
    assert "+### Re: First question? (HEAD)" in result["diff"]
    assert "+The answer is 42." in result["diff"]
    assert "Also 42." not in result["diff"]
    assert Path(result["file"]).read_text() == result["diff"]  # noqa: ASYNC240
    shown = [(d.uri, d.take_focus) for d in client.shown_documents]
    assert shown == [(Path(result["file"]).as_uri(), True)]
    lens = (await turn_lenses(client, uri))[2]
    result = await execute(client, lens.command.command, **lens.command.arguments[0])
    assert result["sha"] == second
    assert "+Also 42." in result["diff"]


async def test_an_uncommitted_answer_has_no_diff_yet(client, project, doc):
    editor = await start_editor(client, root=project)
    uri = doc.as_uri()
    editor.open(uri, DOC)
    await execute(client, "agentDoc.write", uri=uri,
                  response=answer("First question?", "42"))  # fmt: skip
    (diff, _revert) = await turn_lenses(client, uri)
    with pytest.raises(JsonRpcException, match="no commit holds"):
        await execute(client, diff.command.command, **diff.command.arguments[0])


async def test_revert_removes_the_answer_and_keeps_what_was_typed_since(
    client, project, doc
):
    editor = await start_editor(client, root=project)
    uri = await two_turns(editor, client, doc)
    type_before_close(editor, uri, "A third, unsent question\n")
    lens = (await turn_lenses(client, uri))[1]
    assert lens.command.title == "Revert this turn"
    applied = len(editor.applied)
    result = await execute(client, lens.command.command, **lens.command.arguments[0])
    assert result == {"heading": "### Re: First question?", "snapshot": True}
    assert len(editor.applied) == applied + 1  # one workspace edit
    text = editor.text(uri)
    assert "The answer is 42." not in text
    assert "### Re: Second question?\n\nAlso 42.\n" in text
    assert "A third, unsent question\n<!-- /agent:exchange -->" in text
    snapshot = StateStore.for_document(doc).load_snapshot(doc) or ""
    assert "The answer is 42." not in snapshot
    assert "Also 42." in snapshot
    assert doc.read_text() == DOC  # the editor owns the file
    # the next diff carries only the new question, not the removed answer
    diff = await execute(client, "agentDoc.diff", uri=uri)
    changed = [ln for ln in diff["diff"].splitlines() if ln[:1] in "+-"]
    assert changed == ["--- snapshot", "+++ document", "+A third, unsent question"]
    assert len(await turn_lenses(client, uri)) == 2


async def test_commands_also_take_a_line_inside_the_answer(client, project, doc):
    editor = await start_editor(client, root=project)
    uri = await two_turns(editor, client, doc)
    line = editor.text(uri).split("\n").index("Also 42.")
    result = await execute(client, "agentDoc.turnDiff", uri=uri, line=line)
    assert "+Also 42." in result["diff"]
    result = await execute(client, "agentDoc.revertTurn", uri=uri, line=line)
    assert result["heading"] == "### Re: Second question?"
    assert "Also 42." not in editor.text(uri)
    with pytest.raises(JsonRpcException, match="not inside an agent answer"):
        await execute(client, "agentDoc.revertTurn", uri=uri, line=0)


QUESTIONS = ("First question?", "Second question?", "Third question?")
REPLIES = ("The answer is 42.", "Also 42.", "Still 42.")


def type_under(editor: Editor, uri: str, line_text: str, text: str) -> None:
    """Type ``text`` on a new line right under the line ``line_text``."""
    line = editor.text(uri).split("\n").index(line_text)
    editor.type(uri, line + 1, 0, text)


async def three_turns_typed_under(
    editor: Editor, client: LanguageClient, doc: Path
) -> str:
    """Three committed turns; the person typed a line right under each answer
    (after the next turn, so answers 1 and 2 have sent text under them)."""
    uri = doc.as_uri()
    editor.open(uri, DOC)
    for n, (question, reply) in enumerate(zip(QUESTIONS, REPLIES, strict=True)):
        if n:
            type_before_close(editor, uri, f"{question}\n")
        await execute(client, "agentDoc.write", uri=uri,
                      response=answer(question, reply))  # fmt: skip
        assert (await execute(client, "agentDoc.commit", uri=uri))["committed"]
    for n, reply in enumerate(REPLIES):
        type_under(editor, uri, reply, f"typed under answer {n + 1}\n")
    return uri


@pytest.mark.parametrize("turn", [0, 1, 2], ids=["first", "middle", "last"])
async def test_revert_of_any_turn_keeps_the_lines_typed_under_it(
    client, project, doc, turn
):
    """Regression: "Revert this turn" on an earlier answer also deleted the
    question the person had typed right under it (docs/insight.md promises
    those lines stay); only the last turn was tested."""
    editor = await start_editor(client, root=project)
    uri = await three_turns_typed_under(editor, client, doc)
    before = editor.text(uri)
    lens = (await turn_lenses(client, uri))[2 * turn + 1]
    assert lens.command.title == "Revert this turn"
    result = await execute(client, lens.command.command, **lens.command.arguments[0])
    assert result == {"heading": f"### Re: {QUESTIONS[turn]}", "snapshot": True}
    text = editor.text(uri)
    assert REPLIES[turn] not in text
    assert f"### Re: {QUESTIONS[turn]}" not in text
    for n in range(3):
        assert f"typed under answer {n + 1}\n" in text
        assert QUESTIONS[n] in text
        assert (REPLIES[n] in text) == (n != turn)
    removed = len(before.splitlines()) - len(text.splitlines())
    assert removed == 3, f"{removed} lines removed:\n{text}"
    snapshot = StateStore.for_document(doc).load_snapshot(doc) or ""
    assert REPLIES[turn] not in snapshot
    assert all(q in snapshot for q in QUESTIONS)
