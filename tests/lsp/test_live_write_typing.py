"""Live writes while the person types (issue 12), against the real server.

The editor-like client types keystrokes at a human pace while a real
``agent-doc write`` runs: the write must land as minimal edits (one
``TextEdit`` per changed region, none covering the typed line), wait for the
person's pause, and keep every keystroke.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import offset_of
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import start_editor
from tests.lsp.test_live_write import SERVER
from tests.lsp.test_live_write import opened
from tests.lsp.test_live_write import registered
from tests.lsp.test_live_write import run_cli

DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\n"
    "Some notes the person keeps.\n\n"
    "<!-- agent:exchange -->\nWhat should we do first?\n<!-- /agent:exchange -->\n"
)
RESPONSE = (
    "<!-- patch:status -->\nanswering\n<!-- /patch:status -->\n"
    "<!-- patch:exchange -->\n### Re: first\n\nWrite the tests.\n"
    "<!-- /patch:exchange -->\n"
)


def end_of_prompt(editor: Editor, uri: str) -> types.Position:
    """Where the cursor of a person typing at the end of the prompt line is."""
    text = editor.text(uri)
    at = text.index("\n", text.index("What should we do first?"))
    return position_of(text, at, editor.encoding)


def type_at_prompt_end(editor: Editor, uri: str, chars: str) -> None:
    """Type ``chars`` one keystroke at a time at the end of the prompt line."""
    for ch in chars:
        pos = end_of_prompt(editor, uri)
        editor.type(uri, pos.line, pos.character, ch)


async def open_doc(editor: Editor, project: Path) -> Path:
    doc = project / "doc.md"
    doc.write_text(DOC)
    editor.open(doc.as_uri(), DOC)
    await registered(editor, project)
    await opened(project, doc)
    return doc


async def write_with_baseline(doc: Path, baseline: str) -> tuple[int, str]:
    path = doc.with_suffix(".baseline")
    path.write_text(baseline)
    return await run_cli(
        "write", str(doc), "--baseline-file", str(path), stdin=RESPONSE
    )


async def test_status_and_exchange_land_as_two_edits_of_one_versioned_change(
    client, project
):
    ed = await start_editor(client, root=project)
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    type_at_prompt_end(ed, uri, " and then")  # typed after the baseline
    before = ed.text(uri)
    code, err = await write_with_baseline(doc, DOC)
    assert code == 0, err
    (params,) = ed.applied
    (change,) = params.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version is not None
    assert len(change.edits) >= 2  # status at the top, exchange at the bottom
    typed = before.index(" and then")
    prompt_line = before.count("\n", 0, typed)
    for edit in change.edits:
        assert isinstance(edit, types.TextEdit)
        start = offset_of(before, edit.range.start, ed.encoding)
        end = offset_of(before, edit.range.end, ed.encoding)
        assert before[start:end] != edit.new_text  # never a no-op span
        # no range covers the line the person typed in
        assert not (edit.range.start.line <= prompt_line <= edit.range.end.line
                    and end > start), edit  # fmt: skip
        assert edit.range.start.line != prompt_line or start > typed
    text = ed.text(uri)
    assert "What should we do first? and then\n" in text
    assert "Some notes the person keeps." in text
    assert "<!-- agent:status -->\nanswering\n" in text
    # a blank line between the person's text and the response heading
    assert "first? and then\n\n### Re: first\n" in text


async def test_write_waits_for_the_pause_and_keeps_every_keystroke(client, project):
    ed = await start_editor(client, root=project)
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    typed = " and then what about the tests"
    write = asyncio.create_task(write_with_baseline(doc, DOC))
    last_key = 0.0
    for ch in typed:  # 10 characters a second, as a person types
        type_at_prompt_end(ed, uri, ch)
        last_key = time.monotonic()
        await asyncio.sleep(0.1)
        assert ed.applied == [], "an answer landed while the person typed"
    code, err = await asyncio.wait_for(write, 30)
    landed = time.monotonic()
    assert code == 0, err
    assert len(ed.applied) == 1  # one attempt, at the pause
    assert landed - last_key >= 0.5 - 0.1  # the default pause length
    text = ed.text(uri)
    assert f"What should we do first?{typed}\n" in text
    assert text.index(typed) < text.index("Write the tests.")


async def test_typing_past_the_pause_budget_lands_anyway_without_loss(client, project):
    settings = {"writePauseBudgetMs": 600, "writeTimeoutMs": 8000}
    ed = await start_editor(client, root=project, settings=settings)
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    write = asyncio.create_task(write_with_baseline(doc, DOC))
    typed = ""
    while not write.done() and len(typed) < 200:
        type_at_prompt_end(ed, uri, "k")
        typed += "k"
        await asyncio.sleep(0.08)
    code, err = await asyncio.wait_for(write, 30)
    assert code == 0, err
    text = ed.text(uri)
    assert f"What should we do first?{typed}\n" in text
    assert text.count("Write the tests.") == 1


async def test_two_editors_the_write_goes_to_the_one_typed_in_last(client, project):
    second = await ClientServerConfig(server_command=SERVER).start(devtools=None)
    try:
        ed1 = await start_editor(client, root=project)
        ed2 = await start_editor(second, root=project)
        doc = project / "doc.md"
        doc.write_text(DOC)
        ed1.open(doc.as_uri(), DOC)
        ed2.open(doc.as_uri(), DOC)
        await registered(ed1, project, count=2)
        await opened(project, doc, count=2)
        uri = doc.as_uri()
        type_at_prompt_end(ed1, uri, " one")
        await asyncio.sleep(0.05)
        type_at_prompt_end(ed2, uri, " two")  # the person now works here
        await asyncio.sleep(0.7)  # their pause
        code, err = await write_with_baseline(doc, DOC)
        assert code == 0, err
        assert "Write the tests." in ed2.text(uri)
        assert ed1.applied == []
        assert "Write the tests." not in ed1.text(uri)
        await ed1.wait_for(
            lambda: any("stale" in m.message for m in client.messages),
            what="showMessage: this copy is stale",
        )
        assert not any("stale" in m.message for m in second.messages)
    finally:
        await asyncio.wait_for(second.shutdown_session(), 10)
        await second.stop()
