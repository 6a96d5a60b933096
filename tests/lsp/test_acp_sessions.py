"""The server keeps a document's ACP agent between turns (one process, one session).

Real server over stdio, the stand-in agent of ``tests/data/acp_agent.py`` logging
every call it receives with its pid.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient

from tests.lsp.acp_editor import Session
from tests.lsp.acp_editor import start


def calls(log: Path) -> list[dict[str, Any]]:
    """The calls the stand-in agent logged, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def prompts(log: Path) -> list[str]:
    """The prompts the stand-in agent was sent, in order."""
    return [c["prompt"] for c in calls(log) if c["method"] == "session/prompt"]


async def ask_again(session: Session, uri: str, question: str) -> Any:
    """The person adds ``question`` at the end of the exchange and runs a turn."""
    editor = session.editor
    text = editor.text(uri)
    line = text[: text.index("<!-- /agent:exchange -->")].count("\n")
    editor.type(uri, line, 0, f"{question}\n")
    return await asyncio.wait_for(session.run(uri), 60)


async def first_turn(
    client: LanguageClient, tmp_path: Path
) -> tuple[Session, str, Path, Any]:
    """An open session document answered once: session, URI, agent log, result."""
    session = await start(client, tmp_path)
    log = tmp_path / "agent.log"
    session.configure(ACP_AGENT_LOG=str(log), ACP_AGENT_REPLY="First answer.")
    _doc, uri = session.open_document()
    first = await asyncio.wait_for(session.run(uri), 60)
    return session, uri, log, first


async def test_second_turn_reuses_the_agent_and_its_session(
    client: LanguageClient, tmp_path: Path
) -> None:
    session, uri, log, first = await first_turn(client, tmp_path)
    session.configure(ACP_AGENT_LOG=str(log), ACP_AGENT_REPLY="Second answer.")
    second = await ask_again(session, uri, "And 3 + 3?")

    assert second["sessionId"] == first["sessionId"]
    text = session.editor.text(uri)
    assert text.index("First answer.") < text.index("And 3 + 3?")
    assert text.index("And 3 + 3?") < text.index("Second answer.")
    methods = [c["method"] for c in calls(log)]
    assert methods.count("initialize") == 1
    assert methods.count("session/new") == 1
    assert "session/load" not in methods
    assert methods.count("session/prompt") == 2
    (pid,) = {c["pid"] for c in calls(log)}
    first_prompt, second_prompt = prompts(log)
    assert "<document>" in first_prompt
    assert "And 3 + 3?" in second_prompt
    assert "<document>" not in second_prompt  # the live session has it already
    assert "<excerpts>" in second_prompt

    session.editor.close(uri)  # closing the document stops its agent
    await session.editor.wait_for(
        lambda: not running(pid), timeout=10, what="the agent to stop"
    )


async def test_a_dead_agent_is_started_again_and_loads_the_session(
    client: LanguageClient, tmp_path: Path
) -> None:
    session, uri, log, first = await first_turn(client, tmp_path)
    (pid,) = {c["pid"] for c in calls(log)}
    os.kill(pid, 9)  # the agent dies between turns
    await session.editor.wait_for(lambda: not running(pid), timeout=10, what="exit")

    session.configure(ACP_AGENT_LOG=str(log), ACP_AGENT_REPLY="Second answer.")
    second = await ask_again(session, uri, "And 3 + 3?")

    assert "Second answer." in session.editor.text(uri)
    assert second["sessionId"] == first["sessionId"]  # loaded, not new
    methods = [c["method"] for c in calls(log)]
    assert methods.count("initialize") == 2
    assert methods.count("session/load") == 1
    assert len({c["pid"] for c in calls(log)}) == 2
    assert "<excerpts>" in prompts(log)[1]  # the loaded session has the document


async def test_an_agent_that_cannot_load_the_session_is_sent_the_whole_document(
    client: LanguageClient, tmp_path: Path
) -> None:
    session, uri, log, first = await first_turn(client, tmp_path)
    (pid,) = {c["pid"] for c in calls(log)}
    os.kill(pid, 9)
    await session.editor.wait_for(lambda: not running(pid), timeout=10, what="exit")

    session.configure(
        ACP_AGENT_LOG=str(log), ACP_AGENT_REPLY="Second answer.", ACP_AGENT_NO_LOAD="1"
    )
    second = await ask_again(session, uri, "And 3 + 3?")

    assert second["sessionId"] != first["sessionId"]
    assert "session/load" not in [c["method"] for c in calls(log)]
    second_prompt = prompts(log)[1]
    assert "<document>" in second_prompt
    assert "And 3 + 3?" in second_prompt
    assert "First answer." in second_prompt  # the new session gets the history
    assert "Second answer." in session.editor.text(uri)
