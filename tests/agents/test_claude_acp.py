"""``agent-doc run`` through the real Claude ACP adapter; only the model is scripted.

The pinned ``@zed-industries/claude-agent-acp`` (:mod:`tests.real_agents`) is an
``[agents.claude-acp]`` with ``transport = "acp"``; it runs the Claude Agent
SDK against the scripted model (:mod:`tests.model_server`). Run as root it
needs ``IS_SANDBOX=1`` (set by :func:`tests.real_agents.agent_env`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import agent_doc
from tests.model_replies import Text
from tests.model_replies import ToolUse
from tests.model_server import ModelServer

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: claude-acp
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""
ANSWERED = "claude-acp answered; wrote plan.md (disk, committed)\n"


def configure(binary: Path, permissions: str) -> None:
    """``[agents.claude-acp]``: the real adapter over ACP."""
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.claude-acp]\ncommand = "{binary}"\ntransport = "acp"\n'
        f'permissions = "{permissions}"\n'
    )


def run(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``agent-doc run plan.md`` (no terminal: the permissions policy answers)."""
    return agent_doc("run", "plan.md", cwd=project, env=env, timeout=120)


def test_two_turns_stream_load_the_session_and_print_no_traceback(
    project: Path, model: ModelServer, claude_acp: tuple[Path, dict[str, str]]
) -> None:
    binary, env = claude_acp
    configure(binary, "reject")
    doc = project / "plan.md"
    doc.write_text(DOC)
    model.script(Text("### Re: sum\n\n", "It is ", "4", "."))
    first = run(project, env)
    assert first.returncode == 0, first.stderr
    # No SDK validation traceback (the adapter's usage_update has "used": null),
    # no "Loop … that handles pid N is closed" after the adapter is stopped.
    assert first.stderr == ANSWERED
    [call] = model.model_calls()
    assert "<document>" in call.last_user_text()
    text = doc.read_text()
    assert text.count("It is 4.") == 1
    session = text.split("resume: ", 1)[1].split("\n", 1)[0]

    doc.write_text(
        text.replace("<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->")
    )
    model.script(Text("6."))
    second = run(project, env)
    assert second.returncode == 0, second.stderr
    assert second.stderr == ANSWERED
    [call] = model.model_calls()
    assert "It is 4." in call.texts()  # session/load: the conversation goes on
    assert "<diff>" in call.last_user_text()
    assert "<document>" not in call.last_user_text()
    final = doc.read_text()
    assert f"resume: {session}" in final
    assert final.index("And 3 + 3?") < final.index("6.")


@pytest.mark.parametrize("policy", ["allow", "reject"])
def test_a_real_tool_use_asks_permission(
    project: Path,
    model: ModelServer,
    claude_acp: tuple[Path, dict[str, str]],
    policy: str,
) -> None:
    binary, env = claude_acp
    configure(binary, policy)
    (project / "plan.md").write_text(DOC)
    bash = {"command": "echo made > made.txt", "description": "Create made.txt"}
    model.script(ToolUse("Bash", bash), Text("Done."))
    result = run(project, env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    _, after_tool = model.model_calls()
    [tool_result] = after_tool.body["messages"][-1]["content"]
    assert tool_result["type"] == "tool_result"
    made = project / "made.txt"
    if policy == "allow":
        assert made.read_text() == "made\n"
        assert not tool_result.get("is_error")
    else:  # the adapter asked us (session/request_permission); we said no
        assert not made.exists()
        assert tool_result["is_error"] is True
        assert "refused permission" in str(tool_result["content"])
    assert (project / "plan.md").read_text().count("Done.") == 1
