"""``agent-doc run`` with an ACP agent reached over a WebSocket (``acp-ws``).

The agent is the stand-in (``tests/data/acp_agent.py``) served by the ACP
SDK's own WebSocket server (``tests/data/acp_ws_server.py``: the SDK's ASGI
app under uvicorn on 127.0.0.1, a real process) that checks a bearer token;
git is a real repository. The token reaches it only in the Authorization
header: the server refuses anything else before the upgrade.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC
from tests.acp_ws_standin import TOKEN
from tests.acp_ws_standin import AgentServer
from tests.acp_ws_standin import configure_ws as configure
from tests.acp_ws_standin import start_agent_server
from tests.acp_ws_standin import token_file
from tests.cli_runner import cli
from tests.private_tmux import wait_for


@pytest.fixture
def agent_server(tmp_path: Path) -> Iterator[AgentServer]:
    server = start_agent_server(tmp_path)
    yield server
    server.stop()


def test_run_over_websocket_writes_the_answer(
    project: Path, tmp_path: Path, agent_server: AgentServer
) -> None:
    configure(
        agent_server.url,
        token_file(tmp_path, TOKEN),
        'remote_root = "/srv/remote-project"\n',
    )
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert text.index("What is 2 + 2?") < text.index("Hello from ACP.")
    assert text.count("Hello from ACP.") == 1
    new = next(c for c in agent_server.calls() if c["method"] == "session/new")
    assert new["cwd"] == "/srv/remote-project"  # the project as the agent sees it
    assert f"resume: {new['session_id']}" in text
    assert "refused" not in agent_server.stop()


@pytest.mark.parametrize(
    ("token", "reason"), [("not-the-token", "wrong token"), (None, "no token")]
)
def test_a_wrong_or_missing_token_is_refused_and_nothing_changes(
    project: Path,
    tmp_path: Path,
    agent_server: AgentServer,
    token: str | None,
    reason: str,
) -> None:
    configure(agent_server.url, token_file(tmp_path, token) if token else None)
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"agent-doc: agent 'standin' at {agent_server.url} refused the "
        "connection: HTTP 403 (wrong or missing token?)"
    ]
    assert doc.read_text() == SESSION_DOC
    assert agent_server.calls() == []  # the agent never saw a message
    assert f"refused: {reason}" in agent_server.stop()


def test_the_token_may_come_from_an_environment_variable(
    project: Path, agent_server: AgentServer
) -> None:
    configure(agent_server.url, None, 'token_env = "STANDIN_AGENT_TOKEN"\n')
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    unset = cli(project, "run", "plan.md", env={"STANDIN_AGENT_TOKEN": ""})
    assert unset.returncode == 1
    assert unset.stderr.strip().splitlines() == [
        "agent-doc: agent 'standin': the environment variable STANDIN_AGENT_TOKEN "
        "(token_env) is not set or empty"
    ]
    assert doc.read_text() == SESSION_DOC
    result = cli(project, "run", "plan.md", env={"STANDIN_AGENT_TOKEN": TOKEN})
    assert result.returncode == 0, result.stderr
    assert doc.read_text().count("Hello from ACP.") == 1
    assert "refused" not in agent_server.stop()


def test_an_unreachable_agent_is_one_clear_line(project: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"ws://127.0.0.1:{port}/acp"
    configure(url, token_file(tmp_path, TOKEN))
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"agent-doc: cannot reach agent 'standin' at {url}: ")
    assert doc.read_text() == SESSION_DOC


def test_a_missing_token_file_is_one_clear_line(project: Path, tmp_path: Path) -> None:
    configure("ws://127.0.0.1:9/acp", tmp_path / "no-such-token")
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"agent-doc: agent 'standin': cannot read the token file {tmp_path}"
    )
    assert doc.read_text() == SESSION_DOC


def test_a_remote_url_without_a_token_is_refused(project: Path) -> None:
    configure("ws://agents.example.com:9000/acp", None)
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "is not a loopback address: set token_file or token_env" in lines[0]
    assert doc.read_text() == SESSION_DOC


def test_ctrl_c_sends_session_cancel_over_the_socket(
    project: Path, tmp_path: Path, agent_server: AgentServer
) -> None:
    configure(agent_server.url, token_file(tmp_path, TOKEN))
    settings = {
        "ACP_AGENT_LOG": str(agent_server.log),
        "ACP_AGENT_LOG_CHUNKS": "1",
        "ACP_AGENT_REPLY": " ".join(f"word{i}" for i in range(400)),
        "ACP_AGENT_CHUNK": "8",
        "ACP_AGENT_DELAY": "0.05",
    }
    (tmp_path / "agent-settings.json").write_text(json.dumps(settings))
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(
            lambda: sum(c["method"] == "chunk" for c in agent_server.calls()) >= 3,
            timeout=30, what="the agent to stream a few chunks",
        )  # fmt: skip
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGINT, err
    methods = [c["method"] for c in agent_server.calls()]
    assert "session/cancel" in methods  # it went over the socket
    assert "stopped" in methods  # and the agent ended its turn on it
    text = doc.read_text()
    assert "word0 word1" in text
    assert "word399" not in text
    assert text.index("word1") < text.index("*(interrupted)*")


def test_a_large_answer_arrives_whole(
    project: Path, tmp_path: Path, agent_server: AgentServer
) -> None:
    """One message of 3 MB (the WebSocket client's default limit is 1 MiB)."""
    big = "### Re: big\n\n" + "y" * 3_000_000 + "\n"
    settings = {"ACP_AGENT_REPLY": big, "ACP_AGENT_CHUNK": str(len(big))}
    (tmp_path / "agent-settings.json").write_text(json.dumps(settings))
    configure(agent_server.url, token_file(tmp_path, TOKEN))
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 0, result.stderr
    assert big.strip() in doc.read_text()
