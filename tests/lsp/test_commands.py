"""Document commands over ``workspace/executeCommand``, end to end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from agent_doc_lsp import commands
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\n"
    "<!-- agent:exchange -->\nFirst question?\n<!-- /agent:exchange -->\n"
)
RESPONSE = "<!-- patch:exchange -->\nThe answer is 42.\n<!-- /patch:exchange -->\n"


async def execute(client: LanguageClient, command: str, **args: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[args])
        ),
        20,
    )


def type_prompt(editor: Editor, uri: str, text: str) -> None:
    line = editor.text(uri).split("\n").index("<!-- /agent:exchange -->")
    editor.type(uri, line, 0, text)


@pytest.fixture
async def ed(client: LanguageClient, project: Path) -> Editor:
    return await start_editor(client, root=project)


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "doc.md"
    path.write_text(DOC)
    return path


async def test_commands_are_advertised(ed):
    assert ed.init_result is not None
    provider = ed.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert set(commands.ALL) <= set(provider.commands)


async def test_write_command_merges_into_buffer_and_saves_snapshot(ed, client, doc):
    uri = doc.as_uri()
    ed.open(uri, DOC)
    type_prompt(ed, uri, "Unsaved follow-up\n")
    result = await execute(client, commands.WRITE, uri=uri, response=RESPONSE,
                           baseline=DOC)  # fmt: skip
    assert result["target"] == "server"
    text = ed.text(uri)
    assert "The answer is 42." in text
    assert "Unsaved follow-up" in text
    assert doc.read_text() == DOC
    snapshot = StateStore.for_document(doc).load_snapshot(doc)
    assert snapshot is not None
    assert "The answer is 42." in snapshot
    assert "Unsaved follow-up" not in snapshot
    assert StateStore.for_document(doc).load_pending(doc) is None


async def test_patch_command_patches_the_live_buffer(ed, client, doc):
    uri = doc.as_uri()
    ed.open(uri, DOC)
    ed.append(uri, "typed at the end\n")
    result = await execute(client, commands.PATCH, uri=uri, component="status",
                           content="busy\n")  # fmt: skip
    assert result["target"] == "server"
    assert result["changed"] is True
    text = ed.text(uri)
    assert "<!-- agent:status -->\nbusy\n<!-- /agent:status -->" in text
    assert text.endswith("typed at the end\n")
    assert doc.read_text() == DOC
    assert len(ed.applied) == 1


async def test_diff_command_diffs_snapshot_against_live_buffer(ed, client, doc):
    uri = doc.as_uri()
    StateStore.for_document(doc).save_snapshot(doc, DOC)
    ed.open(uri, DOC)
    type_prompt(ed, uri, "A new unsaved question\n")
    result = await execute(client, commands.DIFF, uri=uri)
    assert result["source"] == "buffer"
    assert "+A new unsaved question" in result["diff"]


async def test_outline_command_reads_the_live_buffer(ed, client, doc):
    uri = doc.as_uri()
    ed.open(uri, DOC)
    ed.append(uri, "\n## Unsaved heading\n\ntext\n")
    result = await execute(client, commands.OUTLINE, uri=uri)
    headings = [s["heading"] for s in result]
    assert "Session" in headings
    assert "Unsaved heading" in headings


async def test_reset_command_deletes_the_snapshot(ed, client, doc):
    store = StateStore.for_document(doc)
    store.save_snapshot(doc, DOC)
    result = await execute(client, commands.RESET, uri=doc.as_uri())
    assert "snapshot" in result["deleted"]
    assert store.load_snapshot(doc) is None


async def test_preflight_command_returns_spec_json(ed, client, doc):
    uri = doc.as_uri()
    ed.open(uri, DOC)
    ed.append(uri, "unsaved\n")
    result = await execute(client, commands.PREFLIGHT, uri=uri)
    assert {
        "recovered",
        "committed",
        "claims",
        "diff",
        "no_changes",
        "document",
    } <= set(result)
    # commit moved the boundary to the end of the exchange in the live buffer
    assert result["committed"] is True
    assert result["document"] == ed.text(uri)
    assert "<!-- agent:boundary:" in result["document"]
    assert result["document"].endswith("unsaved\n")
    assert result["no_changes"] is False
    assert doc.read_text() == DOC


async def test_commit_command_commits_the_document(ed, client, doc):
    result = await execute(client, commands.COMMIT, uri=doc.as_uri())
    assert result["committed"] is True


async def test_missing_component_is_a_clear_error(ed, client, doc):
    uri = doc.as_uri()
    ed.open(uri, DOC)
    with pytest.raises(JsonRpcException, match="not found"):
        await execute(client, commands.PATCH, uri=uri, component="nope", content="x")
    assert ed.applied == []


async def test_bad_arguments_are_invalid_params(ed, client):
    with pytest.raises(JsonRpcInvalidParams):
        await execute(client, commands.WRITE, response="no uri")


async def test_write_command_on_a_stuck_editor_fails_and_changes_nothing(
    client, project, doc
):
    ed = await start_editor(client, root=project, settings={"writeTimeoutMs": 600})
    never = asyncio.Event()

    async def stuck(params: types.ApplyWorkspaceEditParams) -> Any:
        await never.wait()

    client.protocol.fm.features[types.WORKSPACE_APPLY_EDIT] = stuck
    uri = doc.as_uri()
    ed.open(uri, DOC)
    with pytest.raises(JsonRpcException, match="in time"):
        await execute(client, commands.WRITE, uri=uri, response=RESPONSE)
    never.set()
    assert ed.text(uri) == DOC
    assert doc.read_text() == DOC
    assert StateStore.for_document(doc).load_snapshot(doc) is None


async def test_commit_repositions_the_buffer_boundary_and_refreshes_vcs(
    ed, client, doc, project
):
    uri = doc.as_uri()
    stale = DOC.replace(
        "<!-- /agent:exchange -->",
        "<!-- agent:boundary:0badc0de -->\nTyped after the answer\n<!-- /agent:exchange -->",
    )
    doc.write_text(stale)
    ed.open(uri, stale)
    StateStore(project).save_snapshot(doc, stale)
    refreshed = asyncio.Event()
    client.protocol.fm.features["agentDoc/vcsRefresh"] = lambda *_: refreshed.set()
    result = await execute(client, commands.COMMIT, uri=uri)
    assert result["committed"] is True
    await asyncio.wait_for(refreshed.wait(), 10)
    lines = ed.text(uri).split("\n")
    close = lines.index("<!-- /agent:exchange -->")
    assert lines[close - 2] == "Typed after the answer"
    # Moved to the end, keeping its id (issue 27: a new id every time made
    # every commit a change).
    assert lines[close - 1] == "<!-- agent:boundary:0badc0de -->"
    assert ed.text(uri).count("<!-- agent:boundary:") == 1
    assert doc.read_text() == stale  # commit never writes the file
    git = await asyncio.create_subprocess_exec(
        "git", "-C", str(project), "show", "HEAD:doc.md", stdout=asyncio.subprocess.PIPE
    )  # fmt: skip
    head, _ = await asyncio.wait_for(git.communicate(), 10)
    assert b"Typed after the answer" in head
