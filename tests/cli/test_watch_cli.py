"""``agent-doc watch`` as a real daemon: cycles, loop prevention, status, stop.

The daemon is started as a subprocess with the fake agent configured as a
custom backend; every wait polls ``.agent-doc/logs/watch.jsonl`` (or the
document) against a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

SESSION = "11111111-2222-3333-4444-555555555555"
DOC = f"""---
agent_doc_session: {SESSION}
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


def wait_for(check: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"condition not met within {timeout} s")


def events(root: Path) -> list[dict[str, Any]]:
    log = root / ".agent-doc" / "logs" / "watch.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line]


@pytest.fixture
def agent_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    configure_fake_claude()
    log = tmp_path / "agent-log.jsonl"
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    monkeypatch.setenv("FAKE_CLAUDE_REPLY", "### Re: sum\n\n4.")
    return log


@pytest.fixture
def session_doc(project: Path) -> Path:
    doc = project / "plan.md"
    doc.write_text(DOC)
    (project / ".agent-doc" / "sessions.json").write_text(
        json.dumps({SESSION: {"pane": "%1", "file": "plan.md"}})
    )
    return doc


@pytest.fixture
def daemon(
    project: Path, session_doc: Path, agent_log: Path
) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "watch", "--debounce", "100"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: any(e["event"] == "ready" for e in events(project)))
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
        if proc.stderr:
            proc.stderr.close()


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_edit_runs_exactly_one_cycle_and_the_own_write_converges(
    project: Path, session_doc: Path, agent_log: Path, daemon: subprocess.Popen[str]
) -> None:
    ready = next(e for e in events(project) if e["event"] == "ready")
    assert ready["files"] == [str(session_doc.resolve())]
    session_doc.write_text(DOC.replace("2 + 2?", "2 + 2, please?"))
    wait_for(lambda: "4." in session_doc.read_text())
    wait_for(lambda: any(e["event"] == "converged" for e in events(project)))
    assert _calls(agent_log) == 1
    kinds = [e["event"] for e in events(project)]
    assert kinds.count("cycle") == 1
    assert kinds.count("cycle-done") == 1
    text = session_doc.read_text()
    assert text.index("2 + 2, please?") < text.index("### Re: sum")
    # A second human edit is a new cycle (the counter resets).
    session_doc.write_text(
        text.replace("<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->")
    )
    wait_for(lambda: [e["event"] for e in events(project)].count("cycle-done") == 2)
    assert _calls(agent_log) == 2


def test_busy_document_is_skipped(
    project: Path, session_doc: Path, agent_log: Path, daemon: subprocess.Popen[str]
) -> None:
    from agent_doc.automation.busy import set_status

    set_status(session_doc, "writing")
    session_doc.write_text(DOC.replace("2 + 2?", "2 + 5?"))
    wait_for(lambda: any(e["event"] == "busy" for e in events(project)))
    assert _calls(agent_log) == 0


def test_status_second_instance_and_stop(
    project: Path, daemon: subprocess.Popen[str]
) -> None:
    status = cli(project, "watch", "--status", "--json")
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert data["running"] is True
    assert data["pid"] == daemon.pid
    plain = cli(project, "watch", "--status")
    assert (plain.returncode, plain.stdout) == (0, f"running (pid {daemon.pid})\n")
    second = cli(project, "watch")
    assert second.returncode == 1
    assert "already running" in second.stderr
    stopped = cli(project, "watch", "--stop")
    assert stopped.returncode == 0, stopped.stderr
    assert daemon.wait(timeout=20) == 0
    assert not (project / ".agent-doc" / "watch.pid").exists()
    after = cli(project, "watch", "--status", "--json")
    assert after.returncode == 3
    assert json.loads(after.stdout)["running"] is False


def test_status_answers_on_stdout_with_exit_code(project: Path) -> None:
    """Issue 15: a script can tell "not running" from "running" (exit 3 vs 0)."""
    result = cli(project, "watch", "--status")
    assert (result.returncode, result.stdout, result.stderr) == (3, "not running\n", "")


def test_stop_cleans_a_stale_pid_file(project: Path) -> None:
    pid_file = project / ".agent-doc" / "watch.pid"
    pid_file.write_text("999999\n")
    result = cli(project, "watch", "--stop", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "root": str(project.resolve()),
        "running": False,
        "pid": None,
        "stale_pid_removed": True,
    }
    assert not pid_file.exists()


def test_sigint_stops_cleanly(project: Path, daemon: subprocess.Popen[str]) -> None:
    os.kill(daemon.pid, signal.SIGINT)
    assert daemon.wait(timeout=20) == 0
    assert not (project / ".agent-doc" / "watch.pid").exists()
    assert events(project)[-1]["event"] == "stopped"


def test_typing_user_delays_the_cycle(
    project: Path, session_doc: Path, agent_log: Path, daemon: subprocess.Popen[str]
) -> None:
    from agent_doc.automation.user_typing import record_typing

    typed_until = time.time() + 1.0  # indicator + 1500 ms window
    record_typing(session_doc, now_ms=int(typed_until * 1000) - 1500)
    session_doc.write_text(DOC.replace("2 + 2?", "2 + 9?"))
    wait_for(lambda: any(e["event"] == "cycle" for e in events(project)))
    cycle = next(e for e in events(project) if e["event"] == "cycle")
    assert cycle["time"] >= typed_until - 0.01


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_during_a_cycle_stops_the_agent_group(
    project: Path, session_doc: Path, signum: int
) -> None:
    from tests.cli.test_cancel import SLOW
    from tests.cli.test_cancel import gone

    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.fake]\ncommand = "{sys.executable}"\nargs = ["{SLOW}"]\n'
    )
    pids = project / "pids.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "watch", "--debounce", "100"],
        cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SLOW_AGENT_PIDS": str(pids)},
    )  # fmt: skip
    try:
        wait_for(lambda: any(e["event"] == "ready" for e in events(project)))
        asked = DOC.replace("2 + 2?", "2 + 2, please?")
        session_doc.write_text(asked)
        wait_for(pids.exists, timeout=30)
        started = json.loads(pids.read_text())
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in json.loads(pids.read_text()).values() if pids.exists() else ():
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
    assert gone(started["agent"])
    assert gone(started["child"])
    assert session_doc.read_text() == asked
    kinds = [e["event"] for e in events(project)]
    assert kinds[-2:] == ["cancelled", "stopped"]
    cancelled = next(e for e in events(project) if e["event"] == "cancelled")
    name = signal.Signals(signum).name
    assert cancelled["error"].startswith(f"cancelled ({name}): stopped agent 'fake'")
    assert not (project / ".agent-doc" / "watch.pid").exists()
