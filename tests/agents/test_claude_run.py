"""``agent-doc run`` with the real Claude Code; only the model's API is scripted.

The pinned ``claude`` (:mod:`tests.real_agents`) is on PATH as the built-in
backend; it talks to the scripted model (:mod:`tests.model_server`), which logs
what claude sent it. Git is a real repository.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cancel import gone
from tests.cli.test_cancel import head
from tests.cli.test_cancel import state_files
from tests.cli_runner import agent_doc
from tests.model_replies import OVERLOADED
from tests.model_replies import RATE_LIMITED
from tests.model_replies import UNAUTHORIZED
from tests.model_replies import Cut
from tests.model_replies import Fault
from tests.model_replies import Hang
from tests.model_replies import Text
from tests.model_replies import ToolUse
from tests.model_server import ModelServer
from tests.private_tmux import wait_for

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


def run(
    project: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """``agent-doc run plan.md ARGS`` with the real claude."""
    return agent_doc("run", "plan.md", *args, cwd=project, env=env, timeout=120)


def ask(doc: Path, question: str) -> None:
    """The person types a new question at the end of the exchange."""
    text = doc.read_text()
    doc.write_text(
        text.replace(
            "<!-- /agent:exchange -->", f"{question}\n<!-- /agent:exchange -->"
        )
    )


def test_first_and_resumed_turn_carry_the_conversation(
    project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    model.script(Text("### Re: sum\n\n", "The answer ", "is 4."))
    first = run(project, claude_env)
    assert first.returncode == 0, first.stderr
    assert first.stderr == "claude answered; wrote plan.md (disk, committed)\n"
    [call] = model.model_calls()
    assert call.body["stream"] is True
    assert "<document>" in call.last_user_text()
    text = doc.read_text()
    assert text.count("The answer is 4.") == 1
    assert text.index("What is 2 + 2?") < text.index("The answer is 4.")
    resume = text.split("resume: ", 1)[1].split("\n", 1)[0]
    assert (Path(claude_env["HOME"]) / ".claude").is_dir()  # claude kept its session

    ask(doc, "And 3 + 3?")
    model.script(Text("6."))
    second = run(project, claude_env, "--model", "claude-test-model")
    assert second.returncode == 0, second.stderr
    [call] = model.model_calls()
    assert call.body["model"] == "claude-test-model"
    assert "The answer is 4." in call.texts()  # the earlier turn, from claude's session
    prompt = call.last_user_text()
    assert "<diff>" in prompt
    assert "And 3 + 3?" in prompt
    assert "<document>" not in prompt  # only the diff and excerpts
    final = doc.read_text()
    assert final.index("And 3 + 3?") < final.index("6.")
    assert f"resume: {resume}" in final  # the same session, resumed
    log = subprocess.run(["git", "-C", str(project), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert log.count("agent-doc(plan)") == 2


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        pytest.param(UNAUTHORIZED, "Invalid API key", id="401"),
        pytest.param(RATE_LIMITED, "Request rejected (429)", id="429"),
        pytest.param(OVERLOADED, "API Error: 529 Overloaded", id="529"),
        pytest.param(Cut(), "Connection to the API was lost", id="cut"),
    ],
)
def test_a_model_fault_is_one_line_naming_the_cause(
    project: Path, model: ModelServer, claude_env: dict[str, str],
    fault: Fault | Cut, cause: str,
) -> None:  # fmt: skip
    doc = project / "plan.md"
    doc.write_text(DOC)
    subprocess.run(["git", "-C", str(project), "add", "plan.md"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "start"], check=True)
    before_state, before_head = state_files(project), head(project)
    model.script(*[fault] * 4)  # CLAUDE_CODE_MAX_RETRIES=1: claude gives up
    failed = run(project, claude_env)
    assert failed.returncode == 1
    assert failed.stderr.startswith("agent-doc: agent 'claude' failed (exit 1): "), (
        failed.stderr
    )
    assert cause in failed.stderr
    assert failed.stderr.count("\n") == 1, failed.stderr
    assert doc.read_text() == DOC
    assert state_files(project) == before_state
    assert head(project) == before_head

    model.script(Text("Four."))  # the model is back: a retry answers once
    retried = run(project, claude_env)
    assert retried.returncode == 0, retried.stderr
    assert doc.read_text().count("Four.") == 1


def _group_of(parent: int) -> int:
    """The session of ``parent``'s child (the agent started in its own)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            return int(stat.parent.name)
    raise AssertionError(f"no child of {parent}")


def _members(session: int) -> list[int]:
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def test_ctrl_c_mid_stream_ends_claude_and_its_children(
    project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    before_state, before_head = state_files(project), head(project)
    model.script(Text(*["word "] * 200, delay=0.2))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, env={**os.environ, **claude_env}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        model.wait_for_calls(1, timeout=60)
        claude = _group_of(proc.pid)
        members = _members(claude)
        assert claude in members
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err.startswith("agent-doc: cancelled (SIGINT): stopped agent 'claude'"), err
    wait_for(lambda: all(map(gone, members)), timeout=10, what="claude's group to end")
    assert _members(claude) == []
    assert doc.read_text() == DOC
    assert state_files(project) == before_state
    assert head(project) == before_head


def test_claude_edits_another_file_with_its_edit_tool(
    project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    notes = project / "notes.txt"
    notes.write_text("alpha\n")
    subprocess.run(["git", "-C", str(project), "add", "."], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "start"], check=True)
    edit = {"file_path": str(notes), "old_string": "alpha", "new_string": "beta"}
    model.script(ToolUse("Edit", edit), Text("I renamed alpha to beta in notes.txt."))
    result = run(project, claude_env)
    assert result.returncode == 0, result.stderr
    _, second = model.model_calls()
    [tool_result] = second.body["messages"][-1]["content"]
    assert tool_result["type"] == "tool_result"
    assert "updated" in str(tool_result["content"])
    assert notes.read_text() == "beta\n"
    assert doc.read_text().count("I renamed alpha to beta") == 1
    # Only the document is committed: claude's edit stays in the working tree.
    changed = subprocess.run(["git", "-C", str(project), "diff", "--name-only"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert changed == "notes.txt\n"
    shown = subprocess.run(["git", "-C", str(project), "show", "--stat", "--format=", "HEAD"],
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "plan.md" in shown
    assert "notes.txt" not in shown


def test_a_hanging_model_ends_at_the_timeout_with_nothing_changed(
    project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    before_state, before_head = state_files(project), head(project)
    model.script(Hang())
    result = run(project, claude_env, "--timeout", "8")
    assert result.returncode == 1
    assert result.stderr == (
        "agent-doc: agent 'claude' timed out after 8 s and was stopped; "
        "the document is unchanged\n"
    )
    assert len(model.model_calls()) == 1  # it was waiting on the model
    assert doc.read_text() == DOC
    assert state_files(project) == before_state
    assert head(project) == before_head


def test_claude_edits_the_session_document_itself(
    project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC.replace("# Plan\n", "# Plan\n\nIntro line.\n"))
    edit = {"file_path": str(doc), "old_string": "Intro line.",
            "new_string": "Intro line, edited by claude."}  # fmt: skip
    model.script(ToolUse("Edit", edit), Text("The answer is 4."))
    result = run(project, claude_env)
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert "Intro line, edited by claude." in text
    assert text.count("The answer is 4.") == 1
    # Not part of the answer's snapshot: the next turn's diff shows the edit.
    ask(doc, "And 3 + 3?")
    dry = agent_doc("run", "plan.md", "--dry-run", cwd=project, env=claude_env)
    diff = dry.stdout.split("<diff>", 1)[1].split("</diff>", 1)[0]
    assert "+And 3 + 3?" in diff
    assert "+Intro line, edited by claude." in diff
