"""``agent-doc run`` with an agent over the Agent Client Protocol, end to end.

The agent is ``tests/data/acp_agent.py`` (the SDK's agent side, real JSON-RPC
over stdio) configured with ``transport = "acp"``; git is a real repository.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import cli

AGENT = Path(__file__).parent.parent / "data" / "acp_agent.py"

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: standin
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


def configure(permissions: str = "ask") -> None:
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[agents.standin]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{AGENT}"]\n'
        'transport = "acp"\n'
        f'permissions = "{permissions}"\n'
    )


def calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "acp-log.jsonl"


def test_run_streams_answer_into_document_and_resumes(project: Path, log: Path) -> None:
    configure()
    doc = project / "plan.md"
    doc.write_text(DOC)
    env = {"ACP_AGENT_LOG": str(log), "ACP_AGENT_REPLY": "### Re: sum\n\nIt is 4."}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert (
        text.index("What is 2 + 2?")
        < text.index("### Re: sum")
        < text.index("It is 4.")
    )
    assert text.count("<!-- agent:boundary:") == 1
    first = calls(log)
    assert [c["method"] for c in first if c["method"].startswith("session/")] == [
        "session/new",
        "session/prompt",
    ]
    session = next(c["session_id"] for c in first if c["method"] == "session/new")
    assert f"resume: {session}" in text
    init = first[0]["capabilities"]
    assert init["fs"] == {"readTextFile": True, "writeTextFile": True}
    prompt = next(c["prompt"] for c in first if c["method"] == "session/prompt")
    assert "<document>" in prompt
    assert "What is 2 + 2?" in prompt
    assert "plan: [in_progress] answer the question" in result.stderr
    # Second turn: the document's resume is loaded, the history replay is ignored.
    log.unlink()
    doc.write_text(
        doc.read_text().replace(
            "<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->"
        )
    )
    second = cli(project, "run", "plan.md", env={**env, "ACP_AGENT_REPLY": "Six."})
    assert second.returncode == 0, second.stderr
    methods = [c["method"] for c in calls(log)]
    assert "session/load" in methods
    assert "session/new" not in methods
    prompt2 = next(c["prompt"] for c in calls(log) if c["method"] == "session/prompt")
    assert "<diff>" in prompt2
    assert "And 3 + 3?" in prompt2
    final = doc.read_text()
    assert "OLD HISTORY" not in final
    assert final.index("And 3 + 3?") < final.index("Six.")
    assert final.count(f"resume: {session}") == 1


def test_permission_without_terminal_refuses_clearly(project: Path, log: Path) -> None:
    configure("ask")
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(
        project, "run", "plan.md", env={"ACP_AGENT_ASK": "1", "ACP_AGENT_LOG": str(log)}
    )
    assert result.returncode == 1
    assert "stdin is not a terminal" in result.stderr
    assert 'permissions = "allow"' in result.stderr
    assert doc.read_text() == DOC


@pytest.mark.parametrize(
    ("policy", "picked"), [("allow", "allow"), ("reject", "reject")]
)
def test_permission_policy_answers_and_files_stay_in_project(
    project: Path, log: Path, policy: str, picked: str
) -> None:
    configure(policy)
    (project / "plan.md").write_text(DOC)
    (project / "notes.md").write_text("first line of notes\nsecond\n")
    env = {
        "ACP_AGENT_ASK": "1",
        "ACP_AGENT_LOG": str(log),
        "ACP_AGENT_READ": str(project / "notes.md"),
        "ACP_AGENT_WRITE": str(project / "out" / "new.txt"),
        "ACP_AGENT_REPLY": "Done.",
    }
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    text = (project / "plan.md").read_text()
    assert f"permission: {picked}" in text
    assert "read: first line of notes" in text
    written = project / "out" / "new.txt"
    assert written.exists() == (policy == "allow")
    if policy == "allow":
        assert written.read_text() == "written by acp\n"


def test_reads_outside_the_project_are_refused(
    project: Path, tmp_path: Path, log: Path
) -> None:
    configure("allow")
    (project / "plan.md").write_text(DOC)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    env = {"ACP_AGENT_READ": str(secret), "ACP_AGENT_WRITE": str(tmp_path / "evil.txt")}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    text = (project / "plan.md").read_text()
    assert "top secret" not in text
    assert "read failed" in text
    assert "write failed" in text
    assert not (tmp_path / "evil.txt").exists()


def test_unknown_transport_is_a_config_error(project: Path) -> None:
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[agents.standin]\ncommand = "x"\ntransport = "carrier-pigeon"\n')
    (project / "plan.md").write_text(DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode != 0
    assert "transport must be one of" in result.stderr
    assert result.stderr.count("\n") == 1


def test_permission_is_asked_on_the_terminal(project: Path, log: Path) -> None:
    """A person at a terminal (stdin is a pty) picks an option by its number."""
    import os
    import pty
    import subprocess
    import threading

    configure("ask")
    (project / "plan.md").write_text(DOC)
    master, slave = pty.openpty()
    env = {
        **os.environ,
        "ACP_AGENT_ASK": "1",
        "ACP_AGENT_LOG": str(log),
        "ACP_AGENT_REPLY": "Done.",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
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
        os.write(master, b"2\n")  # "Reject"
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    reader.join(10)
    stderr = "".join(seen)
    assert proc.returncode == 0, stderr
    assert "asks permission: Write notes.txt" in stderr
    assert "1. Allow once" in stderr
    assert "2. Reject" in stderr
    assert out == b""  # the question never goes to stdout
    assert "permission: reject" in (project / "plan.md").read_text()


def test_an_agent_that_dies_is_explained_by_its_last_stderr_line(
    project: Path,
) -> None:
    """Its stderr is read out (a 200 kB line first) and its last line shown."""
    script = (
        "head -c 200000 /dev/zero | tr '\\0' x >&2; echo >&2; "
        "echo 'boom: no API key set' >&2; exit 3"
    )
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[agents.standin]\ncommand = "sh"\n'
        f'args = {json.dumps(["-c", script])}\ntransport = "acp"\n'
    )
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "agent-doc: agent 'standin' exited during initialize: boom: no API key set"
    ]
    assert doc.read_text() == DOC


def test_an_agent_that_dies_silently_is_explained_by_its_exit_status(
    project: Path,
) -> None:
    configure()
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(project, "run", "plan.md", env={"ACP_AGENT_CRASH_AFTER": "2"})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "agent-doc: agent 'standin' exited during session/prompt: status 3"
    )
    assert doc.read_text() == DOC
