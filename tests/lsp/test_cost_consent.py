"""The cost guard in the editor: ``agentDoc.runAgent`` asks before a prompt
above ``prompt_limit_bytes`` is sent.

Real server over stdio; the agent is the ACP stand-in of
``tests/data/acp_agent.py`` (what is tested is what reaches it, which needs no
model).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.acp_editor import Session
from tests.lsp.acp_editor import start


def prompts(log: Path) -> list[str]:
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [c["prompt"] for c in calls if c["method"] == "session/prompt"]


async def limited(client: LanguageClient, tmp_path: Path) -> tuple[Session, Path]:
    """An editor whose project allows prompts of 100 bytes, and the agent log."""
    session = await start(client, tmp_path)
    (session.root / ".agent-doc" / "config.toml").write_text(
        "prompt_limit_bytes = 100\n"
    )
    log = tmp_path / "agent.log"
    session.configure(ACP_AGENT_LOG=str(log), ACP_AGENT_REPLY="The answer.")
    return session, log


async def run(session: Session, uri: str, **extra: Any) -> Any:
    params = types.ExecuteCommandParams(
        command="agentDoc.runAgent", arguments=[{"uri": uri, **extra}]
    )
    call = session.editor.client.workspace_execute_command_async(params)
    return await asyncio.wait_for(call, 60)


async def test_send_is_asked_first_then_the_turn_runs(
    client: LanguageClient, tmp_path: Path
) -> None:
    session, log = await limited(client, tmp_path)
    session.pick = "Send"
    _doc, uri = session.open_document()
    result = await run(session, uri)
    (question,) = session.requests
    assert question.type == types.MessageType.Warning
    assert "the prompt for plan.md is" in question.message
    assert "above the 100 B limit (a first turn sends the whole document)" in (
        question.message
    )
    assert [a.title for a in question.actions or []] == ["Send", "Don't send"]
    assert result["agent"]
    assert len(prompts(log)) == 1
    assert "The answer." in session.editor.text(uri)


async def test_dont_send_sends_nothing_and_changes_nothing(
    client: LanguageClient, tmp_path: Path
) -> None:
    session, log = await limited(client, tmp_path)
    session.pick = "Don't send"
    doc, uri = session.open_document()
    before = session.editor.text(uri)
    with pytest.raises(JsonRpcException, match=r"not sent: .*; you declined"):
        await run(session, uri)
    assert len(session.requests) == 1
    assert prompts(log) == []
    assert session.editor.text(uri) == before
    assert doc.read_text() == before


async def test_yes_sends_without_asking(client: LanguageClient, tmp_path: Path) -> None:
    session, log = await limited(client, tmp_path)
    session.pick = "Don't send"  # never asked
    _doc, uri = session.open_document()
    await run(session, uri, yes=True)
    assert session.requests == []
    assert len(prompts(log)) == 1
    assert "The answer." in session.editor.text(uri)
