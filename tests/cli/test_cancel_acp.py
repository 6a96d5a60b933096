"""Cancel means cancel, over ACP: what streamed stays, marked interrupted.

``agent-doc run`` drives the stand-in ACP agent (``tests/data/acp_agent.py``,
real JSON-RPC over stdio) that starts a child process of its own; the run is
signalled like a terminal would signal it, mid-answer. A cooperative agent
ends its turn on ``session/cancel``; a deaf one (ignoring the cancel and every
signal but SIGKILL) is stopped with its whole process group after the grace.
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
from tests.acp_standin import configure_standin
from tests.cli.test_cancel import gone
from tests.private_tmux import wait_for

REPLY = " ".join(f"word{i}" for i in range(400))


def entries(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line]


@pytest.fixture
def log(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "acp-log.jsonl"
    yield path
    for entry in entries(path):  # never leave a stand-in running when a test fails
        for key in ("pid", "child"):
            pid = entry.get(key)
            if isinstance(pid, int) and not gone(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    ("signum", "deaf"),
    [
        pytest.param(signal.SIGINT, "", id="ctrl-c"),
        pytest.param(signal.SIGTERM, "", id="sigterm"),
        pytest.param(signal.SIGINT, "1", id="deaf-agent-is-killed"),
    ],
)
def test_cancelled_acp_turn_keeps_what_streamed_marked_interrupted(
    project: Path, tmp_path: Path, log: Path, signum: int, deaf: str
) -> None:
    configure_standin(tmp_path, {})
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    env = {
        **os.environ,
        "ACP_AGENT_LOG": str(log),
        "ACP_AGENT_LOG_CHUNKS": "1",
        "ACP_AGENT_REPLY": REPLY,
        "ACP_AGENT_CHUNK": "8",
        "ACP_AGENT_DELAY": "0.05",
        "ACP_AGENT_CHILD": "1",
        "ACP_AGENT_DEAF": deaf,
        "AGENT_DOC_CANCEL_GRACE_S": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(
            lambda: sum(e["method"] == "chunk" for e in entries(log)) >= 3,
            timeout=30, what="the agent to stream a few chunks",
        )  # fmt: skip
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # the terminal signals the foreground job
        else:
            os.kill(proc.pid, signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    agent = next(e["pid"] for e in entries(log) if e["method"] == "session/prompt")
    child = next(e["child"] for e in entries(log) if e["method"] == "child")
    assert isinstance(agent, int)
    assert isinstance(child, int)
    assert proc.returncode == 128 + signum, err
    name = signal.Signals(signum).name
    assert err.splitlines()[-1] == (
        f"agent-doc: cancelled ({name}): stopped agent 'standin' (pid {agent}); "
        "what it had answered is in the document, marked interrupted"
    )
    assert gone(agent), "the ACP agent survived the cancel"
    assert gone(child), "the ACP agent's child survived the cancel"
    text = doc.read_text()
    assert "word0 word1" in text
    assert "word399" not in text
    assert text.index("word1") < text.index("*(interrupted)*")
    assert "What is 2 + 2?" in text


def test_ctrl_c_during_a_permission_question_ends_at_once(
    project: Path, tmp_path: Path, log: Path
) -> None:
    """A question waiting on the terminal does not keep a cancelled run alive."""
    import pty
    import threading

    configure_standin(tmp_path, {})
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "ACP_AGENT_ASK": "1", "ACP_AGENT_LOG": str(log),
             "ACP_AGENT_CHILD": "1"},
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen: list[str] = []
    asked = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            seen.append(raw.decode())
            if "choose a number" in raw.decode():
                asked.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert asked.wait(60), "".join(seen)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=20)  # nobody answers the question: it must not wait
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    reader.join(10)
    assert proc.returncode == 130, "".join(seen)
    assert "cancelled (SIGINT): stopped agent 'standin'" in seen[-1]
    agent = next(e["pid"] for e in entries(log) if e["method"] == "session/prompt")
    child = next(e["child"] for e in entries(log) if e["method"] == "child")
    assert isinstance(agent, int)
    assert isinstance(child, int)
    assert gone(agent)
    assert gone(child)
    assert "*(interrupted)*" in doc.read_text()
