"""``agent-doc write`` into an open editor buffer, end to end.

The real CLI runs in a subprocess, finds the real server through its project
socket, and the edit lands in the editor-like client's buffer; the file on disk
is the editor's business and must not change.
"""

# ruff: noqa: ASYNC240 - small filesystem checks in async tests are fine

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from pytest_lsp import LanguageClient

from agent_doc.errors import EX_TEMPFAIL
from agent_doc.store.state import StateStore
from tests.lsp.editor_client import ApplyMode
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import capabilities
from tests.lsp.editor_client import start_editor

DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:exchange -->\nFirst question?\n<!-- /agent:exchange -->\n"
)
RESPONSE = "<!-- patch:exchange -->\nThe answer is 42.\n<!-- /patch:exchange -->\n"
SERVER = [sys.executable, "-m", "agent_doc_lsp"]


async def run_cli(*args: str, stdin: str = "", timeout: float = 30) -> tuple[int, str]:
    """Run ``agent-doc`` in a subprocess; return (exit code, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_doc.cli.entry",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), timeout)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def registered(editor: Editor, project: Path, count: int = 1) -> None:
    """Wait (bounded) until ``count`` servers registered in ``project``."""
    servers = project / ".agent-doc" / "servers"
    await editor.wait_for(
        lambda: servers.is_dir() and len(list(servers.glob("*.json"))) >= count,
        what="registration",
    )


async def open_doc(editor: Editor, project: Path, name: str = "doc.md") -> Path:
    doc = project / name
    doc.write_text(DOC)
    editor.open(doc.as_uri(), DOC)
    await registered(editor, project)
    await opened(project, doc)
    return doc


async def opened(project: Path, doc: Path, count: int = 1) -> None:
    """Wait (bounded) until ``count`` servers have ``doc`` open: didOpen travels
    over stdio, a CLI's request over the project socket; either may come first."""
    from tests.reliability._server import ask
    from tests.reliability._server import request

    deadline = asyncio.get_running_loop().time() + 10
    while True:
        sockets = [
            json.loads(entry.read_text())["socket"]
            for entry in (project / ".agent-doc" / "servers").glob("*.json")
        ]
        replies = [await ask(s, request(type="read", file=str(doc))) for s in sockets]
        if sum(1 for r in replies if r.get("open")) >= count:
            return
        assert asyncio.get_running_loop().time() < deadline, f"{doc} never opened"
        await asyncio.sleep(0.02)


def type_prompt(editor: Editor, uri: str, text: str) -> None:
    """Type ``text`` at the end of the exchange (before its close marker)."""
    line = editor.text(uri).split("\n").index("<!-- /agent:exchange -->")
    editor.type(uri, line, 0, text)


async def write(doc: Path, *extra: str, response: str = RESPONSE) -> tuple[int, str]:
    baseline = doc.with_suffix(".baseline")
    baseline.write_text(doc.read_text())
    return await run_cli(
        "write", str(doc), "--baseline-file", str(baseline), *extra, stdin=response
    )


@pytest.fixture
async def ed(client: LanguageClient, project: Path) -> Editor:
    return await start_editor(client, root=project)


async def test_cli_write_lands_in_buffer_after_unsaved_user_text(ed, project):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    type_prompt(ed, uri, "Unsaved prompt\n")
    code, err = await run_cli("write", str(doc), stdin=RESPONSE)
    assert code == 0, err
    text = ed.text(uri)
    assert text.index("Unsaved prompt") < text.index("The answer is 42.")
    assert len(ed.applied) == 1
    assert doc.read_text() == DOC  # the editor owns the file
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot is not None
    assert "The answer is 42." in snapshot


async def test_edits_made_after_the_baseline_follow_the_response(ed, project):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    type_prompt(ed, uri, "Unsaved follow-up\n")
    code, err = await write(doc)  # --baseline-file = the text the agent saw
    assert code == 0, err
    text = ed.text(uri)
    assert "First question?" in text
    assert text.index("The answer is 42.") < text.index("Unsaved follow-up")
    assert doc.read_text() == DOC
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot is not None
    assert "The answer is 42." in snapshot
    assert "Unsaved follow-up" not in snapshot  # snapshot = content_ours


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(ApplyMode.REJECT_STALE, id="rejects-stale"),
        pytest.param(ApplyMode.SKIP_STALE, id="applied-true-but-skips"),
    ],
)
async def test_typing_while_the_edit_travels_is_retried(client, project, mode):
    ed = await start_editor(client, root=project, mode=mode)
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    keystrokes = iter(["x", "y"])

    def user_types(editor: Editor) -> None:
        key = next(keystrokes, None)
        if key is not None:  # the first two attempts go stale
            type_prompt(editor, uri, key + "\n")

    ed.before_apply = user_types
    code, err = await write(doc)
    assert code == 0, err
    text = ed.text(uri)
    assert text.count("The answer is 42.") == 1
    assert "\nx\n" in text
    assert "\ny\n" in text
    assert len(ed.applied) == 3
    assert doc.read_text() == DOC


async def test_document_not_open_is_written_to_disk(ed, project):
    await registered(ed, project)
    doc = project / "closed.md"
    doc.write_text(DOC)
    code, err = await write(doc)
    assert code == 0, err
    assert "The answer is 42." in doc.read_text()
    assert ed.applied == []


async def test_stuck_editor_exits_75_and_writes_nothing(client, project):
    ed = await start_editor(client, root=project, settings={"writeTimeoutMs": 800})
    never = asyncio.Event()

    async def stuck(params: types.ApplyWorkspaceEditParams) -> Any:
        ed.applied.append(params)
        await never.wait()

    client.protocol.fm.features[types.WORKSPACE_APPLY_EDIT] = stuck
    doc = await open_doc(ed, project)
    code, err = await write(doc)
    assert code == EX_TEMPFAIL, err
    assert len(ed.applied) == 1
    assert ed.text(doc.as_uri()) == DOC
    assert doc.read_text() == DOC
    assert StateStore(project).load_snapshot(doc) is None
    never.set()


async def test_two_servers_cli_picks_the_one_with_the_document(ed, project):
    second = await ClientServerConfig(server_command=SERVER).start(devtools=None)
    try:
        ed2 = await start_editor(second, root=project)
        doc_a = await open_doc(ed, project, "a.md")
        doc_b = project / "b.md"
        doc_b.write_text(DOC)
        ed2.open(doc_b.as_uri(), DOC)
        await registered(ed, project, count=2)
        await opened(project, doc_b)
        code, err = await write(doc_b)
        assert code == 0, err
        assert "The answer is 42." in ed2.text(doc_b.as_uri())
        assert ed.applied == []
        assert ed.text(doc_a.as_uri()) == DOC
        assert doc_b.read_text() == DOC
    finally:
        await asyncio.wait_for(second.shutdown_session(), 10)
        await second.stop()


async def test_stale_registration_is_cleaned_and_write_goes_to_disk(ed, project):
    await registered(ed, project)
    servers = project / ".agent-doc" / "servers"
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await dead.wait()
    stale = servers / f"{dead.pid}.json"
    stale.write_text(
        json.dumps(
            {"pid": dead.pid, "socket": "/nonexistent.sock", "roots": [str(project)]}
        )
    )
    doc = project / "closed.md"
    doc.write_text(DOC)
    code, err = await write(doc)
    assert code == 0, err
    assert not stale.exists()
    assert "The answer is 42." in doc.read_text()
    # one line says an editor may still hold unsaved text (issue 12)
    notices = [line for line in err.splitlines() if "is gone" in line]
    assert notices == [
        f"agent-doc: language server {dead.pid} is gone (crashed?); an editor "
        "may hold unsaved text of closed.md — writing to disk"
    ], err


async def test_very_long_project_path(client, tmp_path):
    deep = tmp_path
    while len(str(deep)) < 220:
        deep = deep / "a-rather-long-directory-name"
    project = deep / "proj"
    (project / ".agent-doc").mkdir(parents=True)
    ed = await start_editor(client, root=project)
    doc = await open_doc(ed, project)
    code, err = await write(doc)
    assert code == 0, err
    assert "The answer is 42." in ed.text(doc.as_uri())


async def test_long_runtime_dir_falls_back_to_tmp(tmp_path, project):
    runtime = tmp_path / ("r" * 120)
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    client = await ClientServerConfig(server_command=SERVER, server_env=env).start(
        devtools=None
    )
    try:
        ed = await start_editor(client, root=project)
        doc = await open_doc(ed, project)
        reg = json.loads(
            next((project / ".agent-doc" / "servers").glob("*.json")).read_text()
        )
        assert len(reg["socket"]) < 100
        code, err = await write(doc)
        assert code == 0, err
        assert "The answer is 42." in ed.text(doc.as_uri())
    finally:
        await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()


async def test_cli_patch_and_reposition_go_to_the_buffer(ed, project):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    ed.append(uri, "\n<!-- agent:status -->\nidle\n<!-- /agent:status -->\n")
    code, err = await run_cli("patch", str(doc), "status", "busy")
    assert code == 0, err
    assert "<!-- agent:status -->\nbusy\n<!-- /agent:status -->" in ed.text(uri)
    assert doc.read_text() == DOC
    reg = json.loads(
        next((project / ".agent-doc" / "servers").glob("*.json")).read_text()
    )
    reader, writer = await asyncio.open_unix_connection(reg["socket"])
    writer.write(json.dumps({"type": "reposition", "file": str(doc)}).encode() + b"\n")
    reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
    writer.close()
    assert reply == {"ok": True}
    lines = ed.text(uri).split("\n")
    close = lines.index("<!-- /agent:exchange -->")
    assert lines[close - 1].startswith("<!-- agent:boundary:")
    assert lines[close - 2] == "First question?"
    assert doc.read_text() == DOC


async def test_slow_write_reports_progress(client, project):
    editor = Editor(client=client)
    slow = asyncio.Event()

    async def answer_late(params: types.ApplyWorkspaceEditParams) -> Any:
        # a slow editor: answer only after the server started its progress
        await asyncio.wait_for(slow.wait(), 5)
        return editor.handle_apply_edit(params)

    client.feature(types.WORKSPACE_APPLY_EDIT)(answer_late)
    caps = capabilities()
    caps.window = types.WindowClientCapabilities(work_done_progress=True)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="p")],
        )
    )
    doc = await open_doc(editor, project)
    task = asyncio.create_task(write(doc))
    await editor.wait_for(lambda: client.progress_reports, what="progress begin")
    slow.set()
    code, err = await task
    assert code == 0, err
    (reports,) = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "The answer is 42." in editor.text(doc.as_uri())


async def test_two_concurrent_writes_both_land_once(ed, project):
    doc = await open_doc(ed, project)
    answers = [f"<!-- patch:exchange -->\nAnswer {n}.\n<!-- /patch:exchange -->\n"
               for n in (1, 2)]  # fmt: skip
    results = await asyncio.gather(
        *(run_cli("write", str(doc), stdin=answer) for answer in answers)
    )
    assert [code for code, _ in results] == [0, 0], results
    text = ed.text(doc.as_uri())
    assert text.count("Answer 1.") == 1
    assert text.count("Answer 2.") == 1
    assert doc.read_text() == DOC


async def test_cli_reset_clears_resume_in_the_buffer_not_the_file(ed, project):
    doc = project / "doc.md"
    text = DOC.replace("---\n# Session", "---\n# Session", 1).replace(
        "agent_doc_format: template\n", "agent_doc_format: template\nresume: abc-123\n"
    )
    doc.write_text(text)
    uri = doc.as_uri()
    ed.open(uri, text)
    await registered(ed, project)
    await opened(project, doc)
    StateStore(project).save_snapshot(doc, text)
    type_prompt(ed, uri, "Unsaved line\n")
    code, err = await run_cli("reset", str(doc))
    assert code == 0, err
    live = ed.text(uri)
    assert "resume:" not in live
    assert "Unsaved line" in live
    assert doc.read_text() == text  # the editor owns the file
    assert StateStore(project).load_snapshot(doc) is None
