"""``run`` as a person meets it: one turn per document, nothing paid for in vain.

Real ``agent-doc run`` processes and real git repositories; the agent is
``tests/data/gated_agent.py``, which records every call (so a test counts what
would have been paid) and answers only once the test opens its gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_doc.automation.busy import get_status
from agent_doc.store.config import global_config_path
from tests.cli_runner import cli

GATED = Path(__file__).parent.parent / "data" / "gated_agent.py"
DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: gated
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""
BOUND_S = 90.0
"""Longest wait for any event (the test machine is slow and shared)."""


@dataclass
class Agent:
    """The gated stand-in: its call log and its gate."""

    log: Path
    gate: Path

    def env(self) -> dict[str, str]:
        return {"GATED_AGENT_LOG": str(self.log), "GATED_AGENT_GATE": str(self.gate)}

    def calls(self) -> list[dict[str, str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def open(self) -> None:
        self.gate.touch()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[agents.gated]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{GATED}", "-p", "--output-format", "json"]\n'
        "[agents.gone]\n"
        'command = "agent-doc-test-no-such-program"\n'
    )
    return Agent(tmp_path / "agent-calls.jsonl", tmp_path / "gate")


def wait_for(what: str, check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + BOUND_S
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def start_run(
    root: Path, agent: Agent, *args: str, stderr: Path | None = None
) -> subprocess.Popen[str]:
    err = stderr.open("w") if stderr is not None else subprocess.PIPE
    return subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
        env={**os.environ, **agent.env()},
    )


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_a_second_run_is_refused_at_once_and_the_agent_called_once(
    project: Path, agent: Agent
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    first = start_run(project, agent)
    try:
        wait_for("the first agent call", lambda: len(agent.calls()) == 1)
        second = cli(project, "run", "plan.md", env=agent.env())
        assert first.poll() is None  # refused while the first still runs
        assert get_status(doc) == "generating"  # the refusal left it alone
    finally:
        agent.open()
        _, first_err = first.communicate(timeout=BOUND_S)
    assert second.returncode == 1
    assert second.stderr.splitlines() == [second.stderr.strip()]  # one line
    assert second.stderr.startswith(
        f"agent-doc: plan.md already has a turn running (pid {first.pid}, `run`, since "
    )
    assert second.stderr.rstrip().endswith("; use --wait to queue")
    assert first.returncode == 0, first_err
    assert "waiting for" not in first_err  # no elapsed time off a terminal
    assert len(agent.calls()) == 1
    assert doc.read_text().count("Answer 1.") == 1


def test_run_wait_queues_behind_the_running_turn_then_sends_what_is_new(
    project: Path, agent: Agent, tmp_path: Path
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    first = start_run(project, agent)
    second_err = tmp_path / "second.err"
    second = None
    try:
        wait_for("the first agent call", lambda: len(agent.calls()) == 1)
        second = start_run(project, agent, "--wait", stderr=second_err)
        wait_for(
            "the waiting message", lambda: "waiting up to" in second_err.read_text()
        )
        doc.write_text(  # the person asks more while the first turn runs
            doc.read_text().replace(
                "<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->"
            )
        )
        assert len(agent.calls()) == 1  # the second waits, paying nothing yet
    finally:
        agent.open()
        first.communicate(timeout=BOUND_S)
        if second is not None:
            second.communicate(timeout=BOUND_S)
    assert second is not None
    message = second_err.read_text()
    assert message.startswith(
        f"agent-doc: plan.md has a turn running (pid {first.pid}, `run`, since "
    )
    assert "; waiting up to 600 s for it to end\n" in message
    assert first.returncode == 0
    assert second.returncode == 0, message
    calls = agent.calls()
    assert len(calls) == 2
    diff = calls[1]["prompt"].split("<diff>")[1].split("</diff>")[0]
    assert "+And 3 + 3?" in diff
    assert "+Answer 1." not in diff  # the first answer is not sent back as typed
    text = doc.read_text()
    assert text.index("Answer 1.") < text.index("And 3 + 3?") < text.index("Answer 2.")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        pytest.param("not-a-repo", "plan.md is not in a git repository", id="no-git"),
        pytest.param("detached", "HEAD is detached", id="detached-head"),
        pytest.param("no-identity", "git has no identity", id="no-identity"),
        pytest.param("missing-agent", "agent 'gone' is not installed", id="no-agent"),
        pytest.param("bad-frontmatter", "invalid frontmatter YAML", id="bad-yaml"),
    ],
)
def test_a_turn_that_cannot_finish_fails_before_the_agent_is_paid(
    tmp_path: Path, project: Path, agent: Agent, case: str, expected: str
) -> None:
    root, env, text = project, agent.env(), DOC
    if case == "not-a-repo":
        root = tmp_path / "plain"
        (root / ".agent-doc").mkdir(parents=True)
    elif case == "no-identity":
        root = tmp_path / "anonymous"
        (root / ".agent-doc").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        env |= {"HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": os.devnull}
        env |= {"GIT_CONFIG_NOSYSTEM": "1"}
    elif case == "missing-agent":
        text = DOC.replace("agent: gated", "agent: gone")
    elif case == "bad-frontmatter":
        text = DOC.replace("agent: gated", "agent: gated\nmodel: [")
    doc = root / "plan.md"
    doc.write_text(text)
    if case == "detached":
        git(root, "add", "plan.md")
        git(root, "commit", "-qm", "plan")
        git(root, "checkout", "-q", "--detach")
    before = git(root, "log", "--oneline", "--all") if (root / ".git").exists() else ""
    agent.open()
    result = cli(root, "run", "plan.md", env=env)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("agent-doc: ")
    assert expected in result.stderr
    if case in ("not-a-repo", "detached", "no-identity"):
        assert "--no-git" in result.stderr  # says how to go on anyway
    if case == "detached":
        assert "pass -b" in result.stderr  # -b commits on its own branch
    assert agent.calls() == []  # nothing paid for
    assert doc.read_text() == text
    assert not list((root / ".agent-doc").glob("snapshots/*"))
    if before:
        assert git(root, "log", "--oneline", "--all") == before


def test_no_git_answers_in_a_folder_that_is_not_a_repository(
    tmp_path: Path, agent: Agent
) -> None:
    root = tmp_path / "plain"
    (root / ".agent-doc").mkdir(parents=True)
    doc = root / "plan.md"
    doc.write_text(DOC)
    agent.open()
    result = cli(root, "run", "plan.md", "--no-git", env=agent.env())
    assert result.returncode == 0, result.stderr
    assert "Answer 1." in doc.read_text()
    assert len(agent.calls()) == 1
    assert not (root / ".git").exists()


def test_a_fresh_document_with_nothing_typed_is_not_sent(
    project: Path, agent: Agent
) -> None:
    created = cli(project, "init", "plan.md", "--agent", "gated")
    assert created.returncode == 0, created.stderr
    doc = project / "plan.md"
    scaffold = doc.read_text()
    agent.open()
    result = cli(project, "run", "plan.md", env=agent.env())
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("agent-doc: nothing to send")
    assert agent.calls() == []
    assert doc.read_text() == scaffold
    preflight = json.loads(cli(project, "preflight", "plan.md").stdout)
    assert preflight["no_changes"] is True  # the Claude skill's path agrees
    assert preflight["diff"] is None
    doc.write_text(scaffold.replace("## User\n", "## User\n\nHello?\n"))
    assert json.loads(cli(project, "preflight", "plan.md").stdout)["diff"]
    typed = cli(project, "run", "plan.md", env=agent.env())
    assert typed.returncode == 0, typed.stderr
    assert len(agent.calls()) == 1
    again = cli(project, "run", "plan.md", env=agent.env())
    assert again.returncode == 0
    assert again.stderr.startswith("agent-doc: nothing to send")
    assert len(agent.calls()) == 1


def read_until(fd: int, seen: bytearray, done: Callable[[bytes], bool]) -> None:
    """Read the terminal ``fd`` into ``seen`` until ``done(seen)`` or its end."""
    import select

    deadline = time.monotonic() + BOUND_S
    while not done(bytes(seen)):
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"timed out; the terminal shows {bytes(seen)!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the other end is closed
            return
        if not chunk:
            return
        seen += chunk


def test_run_shows_the_elapsed_time_on_a_terminal_and_clears_it(
    project: Path, agent: Agent
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    terminal, pane = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=pane,
            env={**os.environ, **agent.env()},
        )
        os.close(pane)
        seen = bytearray()
        ticking = "agent-doc: waiting for gated… 1 s".encode()
        read_until(terminal, seen, lambda b: ticking in b)  # redrawn each second
        agent.open()
        read_until(terminal, seen, lambda b: False)  # to the end
        assert proc.wait(timeout=BOUND_S) == 0
    finally:
        os.close(terminal)
    screen = seen.decode()
    assert "waiting for gated… 0 s" in screen
    after = screen.rsplit("waiting for gated…", 1)[1]
    assert "\r\x1b[K" in after  # the line is cleared before the result
    assert after.index("\r\x1b[K") < after.index("gated answered; wrote plan.md")


def test_a_dry_run_neither_waits_for_nor_disturbs_a_running_turn(
    project: Path, agent: Agent
) -> None:
    from agent_doc.automation.busy import set_status
    from tests.turn_holder import turn_held

    doc = project / "plan.md"
    doc.write_text(DOC)
    with turn_held(doc, "watch"):
        set_status(doc, "generating")  # what the running turn shows
        result = cli(project, "run", "plan.md", "--dry-run", env=agent.env())
        assert get_status(doc, timeout_ms=600_000) == "generating"
    assert result.returncode == 0, result.stderr
    assert "<document>" in result.stdout
    assert agent.calls() == []
