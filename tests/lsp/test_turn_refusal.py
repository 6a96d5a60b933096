"""The server's agent turn and the command line's never answer one document at once.

The server runs over stdio (pytest-lsp) with the ACP stand-in agent; the other
turn is a real process: a holder of the turn lock, or a real ``agent-doc run``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcServerError
from pytest_lsp import LanguageClient

from agent_doc.cycle.turn_lock import running_turn
from tests.acp_standin import SESSION_DOC as DOC
from tests.cli_runner import cli
from tests.lsp.acp_editor import start
from tests.turn_holder import turn_held


async def test_run_agent_is_refused_while_another_process_runs_the_turn(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    doc.write_text(DOC)
    session.configure(ACP_AGENT_REPLY="Never sent.")
    with (
        turn_held(doc, "run") as holder,
        pytest.raises(JsonRpcServerError) as refused,
    ):
        await asyncio.wait_for(session.run(doc.as_uri()), 30)
    assert f"already has a turn running (pid {holder.pid}, `run`, since " in str(
        refused.value
    )
    assert doc.read_text() == DOC  # nothing answered


async def test_cli_run_is_refused_while_the_server_answers(
    client: LanguageClient, tmp_path: Path
) -> None:
    session = await start(client, tmp_path)
    doc = session.root / "plan.md"
    doc.write_text(DOC)
    session.configure(ACP_AGENT_ASK="1", ACP_AGENT_REPLY="Done.")
    session.pick = "Allow once"
    seen: list[tuple[object, int, str]] = []

    def while_answering() -> None:  # the agent waits for the person's answer
        other = cli(session.root, "run", "plan.md")
        seen.append((running_turn(doc), other.returncode, other.stderr))

    session.on_question.append(while_answering)
    session.editor.open(doc.as_uri(), DOC)
    result = await asyncio.wait_for(session.run(doc.as_uri()), 90)
    assert result["target"] == "server"
    [(holder, code, stderr)] = seen
    assert holder is not None
    assert holder.command == "server"
    assert code == 1
    assert "plan.md already has a turn running (pid " in stderr
    assert "`server`" in stderr
    assert running_turn(doc) is None  # released when the turn ended
