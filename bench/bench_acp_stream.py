"""Benchmark an ACP answer streaming into an open buffer (``agentDoc.runAgent``).

A real ``agent-doc-lsp`` over stdio, a minimal editor client (pygls) that
applies every ``workspace/applyEdit``, and the stand-in ACP agent
(``tests/data/acp_agent.py``) streaming a 2 000-character answer in 200 chunks
10 ms apart (~2 s). Reported: time to the first streamed edit (agent start +
initialize + session + first chunk), streamed edits and their highest rate in
any one-second window (target ≤ 5/s, the final edit included), the whole
turn, and the first edit of a second turn in the same server (the agent and its
session are kept: no start, no ``initialize``).

Run: ``.venv/bin/python bench/bench_acp_stream.py``
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "data" / "acp_agent.py"
DOC = (
    "---\nagent_doc_session: 1111\nagent_doc_format: template\nagent: standin\n---\n"
    "# Plan\n\n<!-- agent:exchange patch=append -->\nWhat is 2 + 2?\n"
    "<!-- /agent:exchange -->\n"
)
REPLY = ("lorem ipsum dolor sit amet " * 80)[:2000]


def setup(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A project, the agent's settings and a config naming it; the server's env."""
    root = tmp / "ws"
    (root / ".agent-doc").mkdir(parents=True)
    settings = tmp / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "ACP_AGENT_REPLY": REPLY,
                "ACP_AGENT_CHUNK": "10",
                "ACP_AGENT_DELAY": "0.01",
            }
        )
    )
    config = tmp / "config" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[agents.standin]\ncommand = "{sys.executable}"\n'
        f'args = ["{AGENT}", "{settings}"]\ntransport = "acp"\n'
    )
    runtime = tmp / "run"
    runtime.mkdir(mode=0o700)
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_RUNTIME_DIR": str(runtime),
        "AGENT_DOC_NO_UPDATE_CHECK": "1",
    }
    return root, env


async def one_turn(tmp: Path) -> dict[str, Any]:
    """Run one streamed turn; return its timings."""
    root, env = setup(tmp)
    doc = root / "plan.md"
    doc.write_text(DOC)
    uri = doc.as_uri()
    client = LanguageClient("bench", "1")
    text = [DOC]
    version = [1]
    stamps: list[float] = []

    def replace(new_text: str) -> None:
        """The buffer now holds ``new_text``: tell the server (whole text)."""
        text[0] = new_text
        version[0] += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=version[0]
                ),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=new_text)
                ],
            )
        )

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        from agent_doc_lsp.convert import LineIndex

        for change in params.edit.document_changes or []:
            assert isinstance(change, types.TextDocumentEdit)
            for edit in change.edits:
                assert isinstance(edit, types.TextEdit)
                index = LineIndex(text[0], "utf-16")
                start = index.offset(edit.range.start)
                end = index.offset(edit.range.end)
                replace(text[0][:start] + edit.new_text + text[0][end:])
        stamps.append(time.perf_counter())
        return types.ApplyWorkspaceEditResult(applied=True)

    await client.start_io(sys.executable, "-m", "agent_doc_lsp", env=env)
    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
        )
    )
    await client.initialize_async(
        types.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=DOC)
        )
    )
    first = await _timed_turn(client, uri, stamps)
    assert REPLY in text[0], "the answer did not land"
    # The person asks again: the server's agent (and session) answers, no start.
    marker = "<!-- /agent:exchange -->"
    replace(text[0].replace(marker, "And again?\n" + marker))
    stamps.clear()
    second = await _timed_turn(client, uri, stamps)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    assert text[0].count(REPLY) == 2, "the second answer did not land"
    return {**first, "second_first_edit_s": second["first_edit_s"]}


async def _timed_turn(
    client: LanguageClient, uri: str, stamps: list[float]
) -> dict[str, Any]:
    started = time.perf_counter()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="agentDoc.runAgent", arguments=[{"uri": uri}]
        )
    )
    finished = time.perf_counter()
    peak = max(sum(1 for t in stamps if s <= t < s + 1) for s in stamps)
    return {
        "first_edit_s": stamps[0] - started,
        "edits": len(stamps),
        "peak_per_s": peak,
        "turn_s": finished - started,
        "stream_s": stamps[-1] - stamps[0],
        "result": result,
    }


def main() -> None:
    """Run three turns and print a table."""
    import logging

    logging.getLogger("pygls").setLevel(logging.ERROR)
    rows = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(asyncio.run(one_turn(Path(tmp))))
    print(
        "| run | first edit | streamed edits | peak edits/s | stream | whole turn "
        "| next turn's first edit (agent kept) |"
    )
    print("|---|---|---|---|---|---|---|")
    for i, row in enumerate(rows, 1):
        print(
            f"| {i} | {row['first_edit_s'] * 1000:.0f} ms | {row['edits']} | "
            f"{row['peak_per_s']} | {row['stream_s']:.2f} s | {row['turn_s']:.2f} s "
            f"| {row['second_first_edit_s'] * 1000:.0f} ms |"
        )
    print(f"\n{len(REPLY)} characters in {len(REPLY) // 10} chunks, 10 ms apart.")


if __name__ == "__main__":
    main()
