"""Cancel means cancel: a signal to ``agent-doc run`` ends the agent's whole group.

Real processes throughout: ``agent-doc run`` is started in its own session
(as a shell starts a foreground job) and signalled like a terminal would
(Ctrl-C: SIGINT to the job's process group); the agent is the stand-in
``tests/data/slow_agent.py``, which starts a child of its own; git is a real
repository. One test presses C-c in a private tmux pane.
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

from agent_doc.store.config import global_config_path
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

SLOW = Path(__file__).parent.parent / "data" / "slow_agent.py"

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: slow
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


def gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] == "Z"


def state_files(root: Path) -> dict[str, bytes]:
    """Every file under ``.agent-doc/`` that carries the document's state."""
    skip = {"status", "logs", "locks", "turns", "events"}  # runtime, not state
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / ".agent-doc").rglob("*"))
        if p.is_file() and not skip & set(p.relative_to(root / ".agent-doc").parts)
    }


def head(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "log", "--format=%H", "-1"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip


@pytest.fixture
def slow_agent(project: Path) -> Iterator[Path]:
    """Configure ``[agents.slow]``; return where it writes its pids."""
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.slow]\ncommand = "{sys.executable}"\nargs = ["{SLOW}"]\n'
    )
    (project / "plan.md").write_text(DOC)
    pids = project / "pids.json"
    yield pids
    if pids.exists():  # never leave a stand-in running when a test fails
        for pid in json.loads(pids.read_text()).values():
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def start_run(project: Path, pids: Path, **env: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SLOW_AGENT_PIDS": str(pids), **env},
        start_new_session=True,
    )
    wait_for(pids.exists, timeout=30, what="the agent to start")
    return proc


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return proc.returncode, err


@pytest.mark.parametrize(
    ("signum", "trap"),
    [
        pytest.param(signal.SIGINT, "", id="ctrl-c"),
        pytest.param(signal.SIGTERM, "", id="sigterm"),
        pytest.param(signal.SIGHUP, "", id="sighup"),
        pytest.param(signal.SIGINT, "1", id="agent-ignores-signals"),
    ],
)
def test_signal_ends_the_agent_and_its_child(
    project: Path, slow_agent: Path, signum: int, trap: str
) -> None:
    before_state, before_head = state_files(project), head(project)
    proc = start_run(
        project, slow_agent, SLOW_AGENT_TRAP=trap, SLOW_AGENT_CHILD_TRAP=trap,
        AGENT_DOC_CANCEL_GRACE_S="1",
    )  # fmt: skip
    pids = json.loads(slow_agent.read_text())
    # A terminal signals the whole foreground job; SIGTERM/SIGHUP come to agent-doc.
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    code, err = finish(proc)
    assert code == 128 + signum, err
    name = signal.Signals(signum).name
    assert err == (
        f"agent-doc: cancelled ({name}): stopped agent 'slow' (pid {pids['agent']}) "
        "and its processes; the document is unchanged\n"
    )
    assert gone(pids["agent"]), "the agent survived the cancel"
    assert gone(pids["child"]), "the agent's child survived the cancel"
    assert (project / "plan.md").read_text() == DOC
    assert state_files(project) == before_state
    assert head(project) == before_head


def test_ctrl_c_in_a_tmux_pane_ends_the_agent(
    project: Path, slow_agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with private_server(monkeypatch, "agentdoc-cancel") as server:
        tmux = ["tmux", "-L", server]
        exit_file = project / "exit-code"
        command = (
            f"cd {project} && SLOW_AGENT_PIDS={slow_agent} "
            f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']} "
            f"{sys.executable} -m agent_doc.cli.entry run plan.md 2>{project}/err; "
            f"echo $? > {exit_file}"
        )
        subprocess.run([*tmux, "send-keys", "-t", "main", command, "Enter"], check=True)
        wait_for(slow_agent.exists, timeout=30, what="the agent to start")
        pids = json.loads(slow_agent.read_text())
        subprocess.run([*tmux, "send-keys", "-t", "main", "C-c"], check=True)
        wait_for(exit_file.exists, timeout=20, what="agent-doc to exit")
    assert exit_file.read_text().strip() == "130"
    assert "cancelled (SIGINT): stopped agent 'slow'" in (project / "err").read_text()
    assert gone(pids["agent"])
    assert gone(pids["child"])
    assert (project / "plan.md").read_text() == DOC


def test_silent_agent_is_named_not_invalid_json(project: Path) -> None:
    from tests.fake_claude_config import FAKE_CLAUDE as FAKE

    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.slow]\ncommand = "{sys.executable}"\nargs = ["{FAKE}"]\n'
    )
    (project / "plan.md").write_text(DOC)
    for code, expected in (
        (
            "0",
            "agent 'slow' printed nothing (exit 0); stderr: fake claude: quota exhausted",
        ),
        ("3", "agent 'slow' exited with status 3: fake claude: quota exhausted"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
            cwd=project, capture_output=True, text=True, timeout=60,
            env={**os.environ, "FAKE_CLAUDE_MODE": "silent", "FAKE_CLAUDE_EXIT": code},
        )  # fmt: skip
        assert result.returncode == 1
        assert result.stderr == f"agent-doc: {expected}\n"
        assert (project / "plan.md").read_text() == DOC


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        pytest.param(
            "badjson",
            "agent 'slow' printed invalid JSON, not the answer of "
            "'claude -p --output-format json': this is not json",
            id="not-json",
        ),
        pytest.param(
            "exit1",
            "agent 'slow' exited with status 1: fake claude: simulated failure",
            id="exit-1",
        ),
    ],
)
def test_agent_errors_read_as_one_plain_line(
    project: Path, mode: str, expected: str
) -> None:
    from tests.fake_claude_config import FAKE_CLAUDE as FAKE

    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.slow]\ncommand = "{sys.executable}"\nargs = ["{FAKE}"]\n'
    )
    (project / "plan.md").write_text(DOC)
    result = subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**os.environ, "FAKE_CLAUDE_MODE": mode},
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == f"agent-doc: {expected}\n"
    assert (project / "plan.md").read_text() == DOC


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_signal_before_the_agent_unwinds_cleanly(
    project: Path, slow_agent: Path, signum: int
) -> None:
    """SIGTERM/SIGHUP while ``run`` waits on an editor's server (a hung one):
    no agent is called, the busy status is released, exit 128 + signal."""
    from tests.socket_server import FakeServer
    from tests.socket_server import register

    server = FakeServer(lambda _request: None)  # never answers
    try:
        register(project, os.getpid(), server.path)
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "SLOW_AGENT_PIDS": str(slow_agent)},
            start_new_session=True,
        )  # fmt: skip
        wait_for(
            lambda: bool(server.requests), timeout=30, what="run to ask the server"
        )
        os.kill(proc.pid, signum)
        code, err = finish(proc)
    finally:
        server.close()
    name = signal.Signals(signum).name
    assert code == 128 + signum, err
    assert err == f"agent-doc: interrupted ({name})\n"
    assert not slow_agent.exists(), "the agent was called"
    assert (project / "plan.md").read_text() == DOC
    statuses = [
        p.read_text()
        for p in (project / ".agent-doc" / "status").glob("*")
        if p.is_file()
    ]
    assert not any(s.startswith("generating") for s in statuses), statuses
