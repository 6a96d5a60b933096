"""An ACP agent's own write of the session document, in the editor (the real server).

``agentDoc.runAgent`` runs the turn in the language server; the agent
(``tests/data/acp_agent.py``, a stand-in written with the ACP SDK's agent
side, real JSON-RPC over stdio) reads the document with ``fs/read_text_file``
and, once the test opens its gate, writes it back edited with
``fs/write_text_file`` — as an agent's edit tool does. Meanwhile the person
types. The write must be one minimal edit merged with that typing, never a
replacement of the buffer. A CRLF document's frontmatter names the agent as
for the CLI.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pytest_lsp import LanguageClient

from tests.acp_standin import SESSION_DOC as DOC
from tests.lsp.acp_editor import start
from tests.lsp.editor_client import ApplyMode
from tests.lsp.editor_client import Editor

TYPED = "typed while the agent worked"


def logged(log: Path, method: str) -> list[dict[str, object]]:
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [c for c in calls if c["method"] == method]


async def until(check: object, timeout: float, what: str) -> None:
    """Wait (bounded) until ``check()`` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():  # type: ignore[operator]
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_agent_write_is_merged_with_what_the_person_typed(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc, uri = session.open_document()
    log, gate = tmp_path / "acp.jsonl", tmp_path / "gate"
    session.configure(
        ACP_AGENT_READ=str(doc),
        ACP_AGENT_WRITE=str(doc),
        ACP_AGENT_EDIT_FROM="# Plan",
        ACP_AGENT_EDIT_TO="# Plan (agent)",
        ACP_AGENT_WRITE_GATE=str(gate),
        ACP_AGENT_LOG=str(log),
        ACP_AGENT_REPLY="Done.",
    )
    editor = session.editor
    running = asyncio.ensure_future(session.run(uri))
    await until(lambda: logged(log, "waiting"), 60, "the agent to read")
    for ch in TYPED:  # the person types below, key by key, after the read
        editor.append(uri, ch)
        await asyncio.sleep(0.02)
    gate.touch()
    result = await asyncio.wait_for(running, 60)

    text = editor.text(uri)
    assert logged(log, "write")[0]["ok"] is True
    assert result["target"] == "server"
    assert text.endswith("Notes:\n" + TYPED)  # nothing typed is lost
    assert text.count("# Plan (agent)\n") == 1  # the agent's edit, once
    assert text.count("wrote: ok") == 1
    assert text.index("What is 2 + 2?") < text.index("Done.")
    [write] = [e for e in editor.applied if e.label == "agent file write"]
    edits = [
        edit
        for change in write.edit.document_changes or []
        for edit in getattr(change, "edits", [])
    ]
    assert len(edits) == 1  # one minimal edit: the heading line only
    assert edits[0].range.start.line == edits[0].range.end.line == 5
    assert doc.read_text() == DOC  # the buffer is the document


async def test_crlf_frontmatter_names_the_agent(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A CRLF buffer (Neovim's ``fileformat=dos`` sends ``\\r\\n``): the turn
    runs the document's ``agent:``, not the default one, and the agent's write
    keeps the buffer's line endings."""
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    crlf = DOC.replace("\n", "\r\n")
    doc.write_bytes(crlf.encode())
    uri = doc.as_uri()
    session.editor.open(uri, crlf)
    log = tmp_path / "acp.jsonl"
    session.configure(
        ACP_AGENT_READ=str(doc),
        ACP_AGENT_WRITE=str(doc),
        ACP_AGENT_EDIT_FROM="# Plan",
        ACP_AGENT_EDIT_TO="# Plan (agent)",
        ACP_AGENT_LOG=str(log),
        ACP_AGENT_REPLY="Done.",
    )

    result = await asyncio.wait_for(session.run(uri), 60)

    assert result["agent"] == "standin"
    [read] = logged(log, "read")
    assert read["content"] == DOC  # the core's form
    text = session.editor.text(uri)
    assert "\n" not in text.replace("\r\n", "")  # still CRLF everywhere
    assert text.count("# Plan (agent)\r\n") == 1
    assert "Done." in text


async def test_the_agent_is_told_a_write_that_did_not_land(
    client: LanguageClient, tmp_path: Path
) -> None:
    """An editor that never takes the agent's edit (every attempt goes stale,
    and like Neovim it still answers ``applied``): the agent gets an error
    result, not success; the buffer keeps what the person typed."""
    session = await start(client, tmp_path, writeTimeoutMs=3000)
    doc, uri = session.open_document()
    log = tmp_path / "acp.jsonl"
    session.configure(
        ACP_AGENT_READ=str(doc),
        ACP_AGENT_WRITE=str(doc),
        ACP_AGENT_EDIT_FROM="# Plan",
        ACP_AGENT_EDIT_TO="# Plan (agent)",
        ACP_AGENT_LOG=str(log),
        ACP_AGENT_REPLY="Done.",
    )
    editor = session.editor
    editor.mode = ApplyMode.SKIP_STALE
    typed: list[str] = []

    def type_first(ed: Editor) -> None:  # the person is always one key ahead
        if ed.applied[-1].label == "agent file write":
            typed.append("x")
            ed.append(uri, "x")

    editor.before_apply = type_first

    result = await asyncio.wait_for(session.run(uri), 60)

    [write] = logged(log, "write")
    assert write["ok"] is False
    assert "did not apply the edit in time" in str(write["error"])
    text = editor.text(uri)
    assert "write failed" in text
    assert "# Plan (agent)" not in text
    assert typed
    assert text.endswith("".join(typed))
    assert result["target"] == "server"
