"""``agent = "codex"``: the real Codex CLI (``codex exec --json``), the model scripted.

The pinned ``@openai/codex`` (:mod:`tests.real_agents`) is on PATH as the
built-in ``codex`` backend; its ``~/.codex/config.toml`` (private ``HOME``)
points a custom model provider at the scripted Responses API
(:mod:`tests.model_server`), with no retries.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cancel import head
from tests.cli.test_cancel import state_files
from tests.cli_runner import agent_doc
from tests.model_replies import OVERLOADED
from tests.model_replies import Cut
from tests.model_replies import Fault
from tests.model_replies import Text
from tests.model_replies import ToolUse
from tests.model_server import ModelServer

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: codex
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
    """``agent-doc run plan.md ARGS`` with the real codex."""
    return agent_doc("run", "plan.md", *args, cwd=project, env=env, timeout=120)


def ask(doc: Path, question: str, text: str | None = None) -> None:
    """The person types a new question at the end of the exchange."""
    text = doc.read_text() if text is None else text
    end = "<!-- /agent:exchange -->"
    doc.write_text(text.replace(end, f"{question}\n{end}"))


def resume_of(text: str) -> str:
    """The ``resume`` id in the document's frontmatter."""
    return text.split("resume: ", 1)[1].split("\n", 1)[0]


def test_first_resumed_and_lost_thread(
    project: Path, model: ModelServer, codex_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    model.script(Text("### Re: sum\n\n", "It is ", "4."))
    first = run(project, codex_env)
    assert first.returncode == 0, first.stderr
    assert first.stderr == "codex answered; wrote plan.md (disk, committed)\n"
    [call] = model.model_calls()
    assert call.path == "/v1/responses"
    assert call.body["stream"] is True
    assert "<document>" in call.last_user_text()
    assert "interactive session document" in call.texts()  # developer_instructions
    text = doc.read_text()
    assert text.count("It is 4.") == 1
    thread = resume_of(text)

    ask(doc, "And 3 + 3?")
    model.script(Text("6."))
    second = run(project, codex_env, "--model", "gpt-test")
    assert second.returncode == 0, second.stderr
    [call] = model.model_calls()
    assert call.body["model"] == "gpt-test"
    assert "It is 4." in call.texts()  # codex exec resume: the thread goes on
    assert "<diff>" in call.last_user_text()
    assert "<document>" not in call.last_user_text()
    text = doc.read_text()
    assert resume_of(text) == thread
    assert text.index("And 3 + 3?") < text.index("6.")

    # A thread codex no longer has: the turn goes again, whole, in a new one.
    lost = "0199a213-81c0-7800-8aa1-bbab2a035a53"
    ask(doc, "And 4 + 4?", text.replace(f"resume: {thread}", f"resume: {lost}"))
    model.script(Text("8."))
    third = run(project, codex_env)
    assert third.returncode == 0, third.stderr
    assert "no rollout found" in third.stderr
    [call] = model.model_calls()
    assert "<document>" in call.last_user_text()
    assert resume_of(doc.read_text()) not in (lost, thread)
    assert doc.read_text().count("8.") == 1


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        pytest.param(OVERLOADED, "unexpected status 529", id="529"),
        pytest.param(Cut(), "stream disconnected before completion", id="cut"),
    ],
)
def test_a_model_fault_is_one_line_naming_the_cause(
    project: Path,
    model: ModelServer,
    codex_env: dict[str, str],
    fault: Fault | Cut,
    cause: str,
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    before_state, before_head = state_files(project), head(project)
    model.script(fault)
    failed = run(project, codex_env)
    assert failed.returncode == 1
    assert failed.stderr.startswith("agent-doc: agent 'codex' failed (exit 1): ")
    assert cause in failed.stderr
    assert failed.stderr.count("\n") == 1, failed.stderr
    assert doc.read_text() == DOC
    assert state_files(project) == before_state
    assert head(project) == before_head


def test_codex_runs_a_command_that_writes_in_the_project(
    project: Path, model: ModelServer, codex_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    command = {"cmd": "echo made > made.txt"}
    model.script(ToolUse("exec_command", command), Text("I wrote made.txt."))
    result = run(project, codex_env)
    assert result.returncode == 0, result.stderr
    _, after_tool = model.model_calls()
    output = after_tool.body["input"][-1]
    assert output["type"] == "function_call_output"
    assert "exited with code 0" in output["output"]
    assert (project / "made.txt").read_text() == "made\n"  # workspace-write
    assert doc.read_text().count("I wrote made.txt.") == 1
