"""A server-side ACP turn cancelled ends the agent's whole process group.

The real server (pytest-lsp, stdio) runs the stand-in ACP agent, which starts
a child process of its own. Stop (``agentDoc.stopAgent``) on an agent that
ignores ``session/cancel`` and every signal but SIGKILL still ends it after
the grace, keeping what streamed, marked interrupted; the server's
``shutdown`` and a SIGTERM to the server end agent and child mid-answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cancel import gone
from tests.lsp.acp_editor import Session
from tests.lsp.acp_editor import start

REPLY = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(300))
BOUND_S = 20.0


def logged(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line]


def pids_of(log: Path) -> tuple[int, int]:
    """The agent's pid and its child's, from the stand-in's log."""
    entries = logged(log)
    agent = next(e["pid"] for e in entries if e["method"] == "session/prompt")
    child = next(e["child"] for e in entries if e["method"] == "child")
    assert isinstance(agent, int)
    assert isinstance(child, int)
    return agent, child


@pytest.fixture
def log(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "acp-log.jsonl"
    yield path
    for entry in logged(path):  # never leave a stand-in running when a test fails
        for key in ("pid", "child"):
            pid = entry.get(key)
            if isinstance(pid, int) and not gone(pid):
                os.kill(pid, signal.SIGKILL)


async def streaming(
    client: LanguageClient, tmp_path: Path, log: Path, *, deaf: bool
) -> tuple[Session, str, asyncio.Future[object]]:
    """A turn under way: a few words streamed into the open buffer."""
    session = await start(client, tmp_path)
    session.configure(
        ACP_AGENT_REPLY=REPLY, ACP_AGENT_CHUNK="6", ACP_AGENT_DELAY="0.05",
        ACP_AGENT_CHILD="1", ACP_AGENT_DEAF="1" if deaf else "",
        ACP_AGENT_LOG=str(log),
    )  # fmt: skip
    _doc, uri = session.open_document()
    running = asyncio.ensure_future(session.run(uri))
    await session.editor.wait_for(
        lambda: "word2 " in session.editor.text(uri), timeout=60, what="some words"
    )
    return session, uri, running


async def ended(pid: int) -> bool:
    deadline = asyncio.get_running_loop().time() + BOUND_S
    while not gone(pid) and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110 - no event for another process ending
        await asyncio.sleep(0.05)
    return gone(pid)


async def test_stop_ends_an_agent_that_ignores_the_cancel(
    client: LanguageClient, tmp_path: Path, log: Path
) -> None:
    session, uri, running = await streaming(client, tmp_path, log, deaf=True)
    agent, child = pids_of(log)
    await session.editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="agentDoc.stopAgent", arguments=[{"uri": uri}]
        )
    )
    result = await asyncio.wait_for(running, BOUND_S)
    assert isinstance(result, dict)
    assert result["interrupted"] is True
    assert await ended(agent), "the agent that ignored session/cancel still runs"
    assert await ended(child), "the agent's child still runs"
    text = session.editor.text(uri)
    assert "word1 " in text
    assert "word299" not in text
    assert text.index("word1 ") < text.index("*(interrupted)*")


@pytest.mark.parametrize("how", ["shutdown", "sigterm"])
async def test_server_going_away_ends_the_agent_group(
    client: LanguageClient, tmp_path: Path, log: Path, how: str
) -> None:
    _session, _uri, running = await streaming(client, tmp_path, log, deaf=False)
    agent, child = pids_of(log)
    process = client._server
    assert process is not None
    if how == "shutdown":
        await asyncio.wait_for(client.shutdown_session(), BOUND_S)
    else:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), BOUND_S)
    client.capabilities = None  # the fixture must not talk to it again
    running.cancel()
    with contextlib.suppress(BaseException):
        await running
    assert await ended(agent), f"the agent outlived the server ({how})"
    assert await ended(child), f"the agent's child outlived the server ({how})"
