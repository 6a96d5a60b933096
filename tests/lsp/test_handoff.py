"""The ``write`` hand-off does only hand-off work (issue 17).

When a server has the document open, ``agent-doc write`` reads stdin, connects,
sends and prints: no typer, no pycrdt, no patch parsing, no state store in the
CLI. The server saves the response as pending, builds content_ours once,
records its digest before it edits the buffer (so a writer killed after the
edit landed is finished by ``recover`` without a second copy), then saves the
snapshot and CRDT state and clears the pending response.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from agent_doc.cycle.recovery import recover_pending
from agent_doc.document.merge import encode_text_state
from agent_doc.errors import ComponentNotFound
from agent_doc.store.landing import load_record
from agent_doc.store.state import StateStore
from agent_doc.write.server_link import ServerLink
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor
from tests.lsp.test_live_write import DOC
from tests.lsp.test_live_write import RESPONSE
from tests.lsp.test_live_write import open_doc
from tests.lsp.test_live_write import run_cli
from tests.lsp.test_live_write import type_prompt

NOT_ON_THE_HANDOFF = (
    "typer",
    "pycrdt",
    "anyio",
    "agent_doc.document.apply",
    "agent_doc.document.patch_blocks",
    "agent_doc.document.merge",
    "agent_doc.store.state",
    "agent_doc.automation.lifecycle",
)


@pytest.fixture
async def ed(client: LanguageClient, project: Path) -> Editor:
    return await start_editor(client, root=project)


async def test_handoff_imports_no_pycrdt_typer_or_patch_parsing(ed: Editor, project):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    type_prompt(ed, uri, "Unsaved prompt\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-X", "importtime", "-m", "agent_doc.cli.entry",
        "write", str(doc),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(proc.communicate(RESPONSE.encode()), 30)
    log = err.decode()
    assert proc.returncode == 0, log[-2000:]
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in log.splitlines()
        if line.startswith("import time:")
    }
    assert imported & set(NOT_ON_THE_HANDOFF) == set()
    assert "agent_doc.write.server_link" in imported
    text = ed.text(uri)
    assert text.count("The answer is 42.") == 1
    assert text.index("Unsaved prompt") < text.index("The answer is 42.")
    store = StateStore(project)
    snapshot = store.load_snapshot(doc)
    assert snapshot is not None
    assert "The answer is 42." in snapshot
    assert store.load_crdt(doc) == encode_text_state(snapshot)
    assert store.load_pending(doc) is None
    assert store.load_expected(doc) is None
    assert doc.read_text() == DOC  # the editor owns the file
    status = (project / ".agent-doc" / "status").glob("*")
    assert [p.read_text().split(":")[0] for p in status] == ["idle"]


def _imported(log: str) -> set[str]:
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in log.splitlines()
        if line.startswith("import time:")
    }


async def test_patch_hands_off_the_whole_command(ed: Editor, project):
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    type_prompt(ed, uri, "Unsaved prompt\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-X", "importtime", "-m", "agent_doc.cli.entry",
        "patch", str(doc), "exchange", "Patched by the agent.\n",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(proc.communicate(), 30)
    log = err.decode()
    assert proc.returncode == 0, log[-2000:]
    assert _imported(log) & set(NOT_ON_THE_HANDOFF) == set()
    assert "patched exchange in" in log
    assert "(server)" in log
    text = ed.text(uri)
    assert "Patched by the agent." in text
    assert StateStore(project).load_snapshot(doc) == text
    assert doc.read_text() == DOC  # the editor owns the file
    code, stderr = await run_cli("patch", str(doc), "nosuch", "x")
    assert code == ComponentNotFound.exit_code, stderr
    assert stderr.startswith("agent-doc: ")
    assert "nosuch" in stderr
    assert ed.text(uri) == text


async def test_cli_killed_after_the_edit_landed_is_recovered_once(ed: Editor, project):
    """The state a SIGKILL between the server's reply and the CLI's bookkeeping
    leaves: pending saved, edit applied, no snapshot. ``recover`` completes it."""
    doc = await open_doc(ed, project)
    uri = doc.as_uri()
    store = StateStore(project)
    store.save_pending(doc, RESPONSE)  # what the CLI does first
    socket = json.loads(
        next((project / ".agent-doc" / "servers").glob("*.json")).read_text()
    )["socket"]
    request = {"type": "write", "file": str(doc.resolve()), "response": RESPONSE,
               "baseline": DOC}  # fmt: skip
    reader, writer = await asyncio.open_unix_connection(socket, limit=2**24)
    writer.write(json.dumps(request).encode() + b"\n")
    reply = json.loads(await asyncio.wait_for(reader.readline(), 30))
    writer.close()
    assert reply["ok"], reply
    assert load_record(store, doc).landing is not None  # recorded before the edit
    assert ed.text(uri).count("The answer is 42.") == 1
    results = await asyncio.to_thread(recover_pending, doc, ServerLink())
    assert [r.status for r in results] == ["completed"]
    assert ed.text(uri).count("The answer is 42.") == 1  # not applied twice
    assert store.load_pending(doc) is None
    assert store.load_snapshot(doc) == reply["content_ours"]


async def test_server_write_without_pending_records_nothing(ed: Editor, project):
    doc = await open_doc(ed, project)
    link = ServerLink()
    handle = await asyncio.to_thread(link.find_owner, doc)
    assert handle is not None
    await asyncio.to_thread(link.write, handle, RESPONSE, None)
    assert ed.text(doc.as_uri()).count("The answer is 42.") == 1
    assert StateStore(project).load_expected(doc) is None
