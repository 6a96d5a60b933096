"""An ACP agent answering through the real server: streaming, questions, files, stop.

The server runs over stdio (pytest-lsp); the agent is ``tests/data/acp_agent.py``
(the SDK's agent side) configured with ``transport = "acp"``. Its behaviour
comes from a JSON settings file named in the agent's ``args``, so each test
sets it after the server started.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcServerError
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.cli_runner import cli
from tests.lsp.acp_editor import field_of
from tests.lsp.acp_editor import start
from tests.lsp.acp_editor import streamed_edits
from tests.lsp.acp_editor import without_answer
from tests.lsp.editor_client import start_editor

REPLY = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(40)) + "\n\nIt is 4."


async def test_answer_streams_into_the_buffer_while_the_person_types(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    session.configure(
        ACP_AGENT_REPLY=REPLY, ACP_AGENT_CHUNK="4", ACP_AGENT_DELAY="0.03"
    )
    doc, uri = session.open_document()
    editor = session.editor
    running = asyncio.ensure_future(session.run(uri))
    await editor.wait_for(
        lambda: "### Re: sum" in editor.text(uri), timeout=60, what="first chunk"
    )
    assert not running.done()
    typed = "typing while it streams"
    for ch in typed:  # a person types below, one key at a time
        editor.append(uri, ch)
        await asyncio.sleep(0.03)
    result = await asyncio.wait_for(running, 60)

    text = editor.text(uri)
    assert result["target"] == "server"
    assert result["interrupted"] is False
    assert text.endswith("Notes:\n" + typed)
    assert (
        text.index("What is 2 + 2?")
        < text.index("### Re: sum")
        < text.index("It is 4.")
    )
    assert text.index("It is 4.") < text.index("<!-- /agent:exchange -->")
    assert REPLY in text
    assert f"resume: {result['sessionId']}" in text
    assert doc.read_text() == DOC  # the file is the editor's business
    chunks = len(REPLY) // 4
    assert 2 <= result["edits"] < chunks  # streamed in steps, throttled
    for edit in streamed_edits(editor):  # pure insertions: no text replaced
        assert edit.range.start == edit.range.end
    snapshot = StateStore.for_document(doc).load_snapshot(doc)
    assert snapshot is not None
    assert REPLY in snapshot
    assert typed not in snapshot  # content_ours: the person's typing shows next diff
    assert any(
        "plan: [in_progress] answer the question" in m for m in session.messages()
    )
    # One undo step: the client learns which edits take the answer out again.
    await editor.wait_for(lambda: session.landed, timeout=10, what="answerLanded")
    (landed,) = session.landed
    assert field_of(landed, "version") == editor.version(uri)
    labels = {params.label for params in editor.applied}
    assert f"agent-doc stream {field_of(landed, 'stream')}" in labels
    assert without_answer(text, landed) == DOC + typed


async def test_permission_and_files_go_through_the_editor(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    other = session.root / "other.md"
    doc.write_text(DOC)
    other.write_text("on disk\n")
    session.configure(
        ACP_AGENT_ASK="1",
        ACP_AGENT_READ=str(doc),
        ACP_AGENT_READ_LINE="6",
        ACP_AGENT_WRITE=str(other),
        ACP_AGENT_REPLY="Done.",
    )
    session.pick = "Allow once"
    editor = session.editor
    editor.open(doc.as_uri(), DOC)
    editor.open(other.as_uri(), "on disk\n")
    editor.type(doc.as_uri(), 5, 0, "UNSAVED LINE\n")  # read must see the live buffer

    result = await asyncio.wait_for(session.run(doc.as_uri()), 60)

    assert result["target"] == "server"
    [request] = session.requests
    assert [a.title for a in request.actions or []] == ["Allow once", "Reject"]
    assert "Write notes.txt" in request.message
    text = editor.text(doc.as_uri())
    assert "permission: allow" in text
    assert "read: UNSAVED LINE" in text
    assert "wrote: ok" in text
    assert editor.text(other.as_uri()) == "written by acp\n"
    assert other.read_text() == "on disk\n"


async def test_status_and_busy_guard_follow_the_turn(
    client: LanguageClient, tmp_path: Path
) -> None:
    """While the agent answers: ``agentDoc/status`` says so (asking, then
    answering) and the document is busy; a busy document refuses a turn."""
    from agent_doc.automation.busy import get_status
    from agent_doc.automation.busy import set_status

    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    doc.write_text(DOC)
    uri = doc.as_uri()
    session.configure(ACP_AGENT_ASK="1", ACP_AGENT_REPLY="Done.")
    session.pick = "Allow once"
    seen: list[tuple[str, list[dict[str, Any]]]] = []
    session.on_question.append(
        lambda: seen.append((get_status(doc), list(session.statuses)))
    )
    session.editor.open(uri, DOC)
    set_status(doc, "writing")  # another operation is at work
    with pytest.raises(JsonRpcServerError, match="another agent-doc operation"):
        await session.run(uri)
    set_status(doc, "idle")

    result = await asyncio.wait_for(session.run(uri), 60)

    assert result["target"] == "server"
    [(busy, statuses)] = seen
    assert busy == "generating"
    mine = [(s["state"], s["detail"]) for s in statuses if s["uri"] == uri]
    assert ("running", "answering over ACP") in mine
    assert mine[-1][0] == "needs_input"
    assert "Write notes.txt" in mine[-1][1]
    assert statuses[-1]["agent"] == "standin"
    assert get_status(doc) == "idle"
    await session.editor.wait_for(
        lambda: session.statuses[-1]["state"] != "running",
        timeout=10,
        what="the status after the turn",
    )


async def test_dismissed_question_and_untrusted_terminal_and_outside_files(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    doc.write_text(DOC)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    session.configure(
        ACP_AGENT_ASK="1",
        ACP_AGENT_READ=str(secret),
        ACP_AGENT_TERMINAL="1",
        ACP_AGENT_REPLY="Done.",
    )
    session.pick = None  # the person dismisses the question
    result = await asyncio.wait_for(session.run(doc.as_uri()), 60)
    assert result["target"] == "disk"  # not open: one write at the end
    text = doc.read_text()
    assert "permission: cancelled" in text
    assert "read failed" in text
    assert "top secret" not in text
    assert "terminal failed" in text
    assert f"resume: {result['sessionId']}" in text


async def test_trusted_workspace_offers_terminals(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path, trusted=True)
    doc = session.root / "plan.md"
    doc.write_text(DOC)
    session.configure(ACP_AGENT_TERMINAL="1", ACP_AGENT_REPLY="Done.")
    await asyncio.wait_for(session.run(doc.as_uri()), 60)
    assert "terminal: term-ok" in doc.read_text()


async def test_stop_agent_keeps_what_streamed_marked_interrupted(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    session.configure(ACP_AGENT_REPLY=REPLY, ACP_AGENT_CHUNK="4", ACP_AGENT_DELAY="0.1")
    _doc, uri = session.open_document()
    editor = session.editor
    running = asyncio.ensure_future(session.run(uri))
    await editor.wait_for(
        lambda: "word1 " in editor.text(uri), timeout=60, what="some words"
    )
    await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="agentDoc.stopAgent", arguments=[{"uri": uri}]
        )
    )
    result = await asyncio.wait_for(running, 30)
    text = editor.text(uri)
    assert result["interrupted"] is True
    assert "It is 4." not in text
    assert "*(interrupted)*" in text
    assert text.index("word1 ") < text.index("*(interrupted)*")
    assert text.index("*(interrupted)*") < text.index("<!-- /agent:exchange -->")


async def test_run_agent_refuses_a_tmux_agent(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    doc.write_text(DOC.replace("agent: standin", "agent: claude"))
    with pytest.raises(JsonRpcServerError, match="not an ACP agent"):
        await session.run(doc.as_uri())
    assert doc.read_text() == DOC.replace("agent: standin", "agent: claude")


async def test_saved_and_closed_mid_stream_lands_once_on_disk(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    session.configure(
        ACP_AGENT_REPLY=REPLY, ACP_AGENT_CHUNK="4", ACP_AGENT_DELAY="0.03"
    )
    doc, uri = session.open_document()
    editor = session.editor
    running = asyncio.ensure_future(session.run(uri))
    await editor.wait_for(
        lambda: "word2 " in editor.text(uri), timeout=60, what="words"
    )
    editor.append(uri, "closing now")
    doc.write_text(editor.text(uri))  # the person saves, with part of the answer
    editor.close(uri)
    result = await asyncio.wait_for(running, 60)
    text = doc.read_text()
    assert result["target"] == "disk"
    assert text.count(REPLY) == 1
    assert text.count("### Re: sum") == 1
    assert text.endswith("Notes:\nclosing now")
    assert f"resume: {result['sessionId']}" in text


async def test_cli_run_answers_into_the_open_buffer_and_reads_it_live(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc, uri = session.open_document()
    editor = session.editor
    editor.type(uri, 5, 0, "UNSAVED LINE\n")
    servers = session.root / ".agent-doc" / "servers"
    await editor.wait_for(lambda: any(servers.glob("*.json")), what="registration")
    env = {
        "ACP_AGENT_READ": str(doc),
        "ACP_AGENT_READ_LINE": "6",
        "ACP_AGENT_REPLY": "From the CLI.",
    }
    result = await asyncio.to_thread(
        cli, session.root, "run", "plan.md", "--no-git", env=env
    )
    assert result.returncode == 0, result.stderr
    text = editor.text(uri)
    assert "read: UNSAVED LINE" in text
    assert text.index("UNSAVED LINE") < text.index("From the CLI.")
    assert "resume: acp-" in text
    assert doc.read_text() == DOC  # the answer went to the buffer, not the file


async def test_client_without_message_actions_answers_with_a_lens(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True)
    configure_standin(tmp_path, {"ACP_AGENT_ASK": "1", "ACP_AGENT_REPLY": "Done."})
    editor = await start_editor(client, root=root)  # no window.showMessage actions
    doc = root / "plan.md"
    doc.write_text(DOC)
    uri = doc.as_uri()
    editor.open(uri, DOC)
    running = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="agentDoc.runAgent", arguments=[{"uri": uri}]
            )
        )
    )

    async def answer_lenses() -> list[types.CodeLens]:
        for _ in range(600):  # bounded: ~60 s
            lenses = await client.text_document_code_lens_async(
                types.CodeLensParams(
                    text_document=types.TextDocumentIdentifier(uri=uri)
                )
            )
            found = [
                lens
                for lens in lenses or []
                if lens.command and lens.command.title.startswith("Answer: ")
            ]
            if found:
                return found
            await asyncio.sleep(0.1)
        raise AssertionError("no Answer: lenses")

    lenses = await answer_lenses()
    assert [lens.command.title for lens in lenses if lens.command] == [
        "Answer: Allow once",
        "Answer: Reject",
    ]
    chosen = lenses[1].command
    assert chosen is not None
    picked = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=chosen.command, arguments=chosen.arguments)
    )
    assert picked["label"] == "Reject"
    result = await asyncio.wait_for(running, 60)
    assert result["target"] == "server"
    assert "permission: reject" in editor.text(uri)


async def test_agent_dying_mid_answer_keeps_what_streamed_marked(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    session.configure(
        ACP_AGENT_REPLY=REPLY,
        ACP_AGENT_CHUNK="4",
        ACP_AGENT_DELAY="0.05",
        ACP_AGENT_CRASH_AFTER="20",
    )
    doc, uri = session.open_document()
    editor = session.editor
    with pytest.raises(JsonRpcServerError, match="exited during session/prompt"):
        await asyncio.wait_for(session.run(uri), 60)
    text = editor.text(uri)
    assert "### Re: sum" in text
    assert "It is 4." not in text
    assert text.index("### Re: sum") < text.index("*(interrupted)*")
    assert text.index("*(interrupted)*") < text.index("<!-- /agent:exchange -->")
    snapshot = StateStore.for_document(doc).load_snapshot(doc)
    assert snapshot is not None
    assert "*(interrupted)*" in snapshot
