"""The real Claude Code TUI: ``agent-doc prompt`` (§7.14) and the skill flow.

The pinned ``claude`` runs interactively in a pane of a private tmux server,
with ``--permission-mode default`` (claude 2.1.x otherwise decides its own
prompts), its onboarding and folder trust answered in its private
``~/.claude.json``. The scripted model asks for a Bash tool call; claude shows
its permission dialog; ``agent-doc prompt FILE`` reports it as JSON and
``--answer 1`` presses "Yes". In the skill flow ``agent-doc route FILE`` types
``/agent-doc FILE`` and the scripted model follows SKILL.md: preflight, write
with the baseline, commit, each a Bash tool call claude runs.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from tests.cli_runner import agent_doc
from tests.model_replies import Text
from tests.model_replies import ToolUse
from tests.model_server import ModelServer
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

pytestmark = pytest.mark.tmux

CLAUDE_ENV = (
    "HOME", "PATH", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "IS_SANDBOX",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_MAX_RETRIES",
    "DISABLE_AUTOUPDATER",
)  # fmt: skip


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    """A private tmux server for this test."""
    with private_server(monkeypatch, "agentdoc-tui") as name:
        yield Tmux(name)


def screen_with(tmux: Tmux, pane: str, text: str, timeout: float = 60) -> str:
    """Wait until ``text`` shows in ``pane``; the capture."""
    seen = [""]

    def shows() -> bool:
        seen[0] = tmux.capture(pane)
        return text in seen[0]

    try:
        wait_for(shows, timeout, f"{text!r} in the claude pane")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the pane shows:\n{seen[0]}") from None
    return seen[0]


def start_claude(tmux: Tmux, project: Path, env: dict[str, str], *args: str) -> str:
    """The real claude TUI in a new pane, past onboarding; its pane id."""
    key = env["ANTHROPIC_API_KEY"]
    (Path(env["HOME"]) / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
                "projects": {str(project): {"hasTrustDialogAccepted": True}},
            }
        )
    )
    assigned = " ".join(f"{k}={shlex.quote(env[k])}" for k in CLAUDE_ENV if k in env)
    extra = shlex.join(args)
    command = f"exec env {assigned} claude --permission-mode default {extra}"
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(project), command
    )[0]
    screen_with(tmux, pane, "manual mode on")
    return pane


def test_prompt_reads_and_answers_claudes_permission_dialog(
    tmux: Tmux, project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(
        "---\nagent_doc_session: 1b0e6f0e-2c1d-4f7a-9d55-3a2f0c8e7b11\n---\n"
    )
    bash = {"command": "echo made > made.txt", "description": "Create made.txt"}
    model.script(ToolUse("Bash", bash), Text("Done."))
    pane = start_claude(tmux, project, claude_env)
    claim(doc, pane=pane, tmux=tmux)
    idle = agent_doc("prompt", "plan.md", cwd=project)
    assert json.loads(idle.stdout) == {"active": False}, idle.stderr
    tmux.send_text(pane, "make the file", enter=False)
    screen_with(tmux, pane, "make the file")
    tmux.send_keys(pane, "Enter")
    screen_with(tmux, pane, "Do you want to proceed?")

    shown = agent_doc("prompt", "plan.md", cwd=project)
    assert shown.returncode == 0, shown.stderr
    prompt = json.loads(shown.stdout)
    assert prompt["active"] is True
    assert "Do you want to proceed?" in prompt["question"]
    labels = [option["label"] for option in prompt["options"]]
    assert labels[0] == "Yes"
    assert labels[-1] == "No"
    assert not (project / "made.txt").exists()  # nothing runs before the answer

    answered = agent_doc("prompt", "plan.md", "--answer", "1", cwd=project)
    assert answered.returncode == 0, answered.stderr
    _, after_tool = model.wait_for_calls(2, timeout=60)
    [tool_result] = after_tool.body["messages"][-1]["content"]
    assert tool_result["type"] == "tool_result"
    assert not tool_result.get("is_error")
    assert (project / "made.txt").read_text() == "made\n"
    screen_with(tmux, pane, "Done.")


SKILL_DOC = """---
agent_doc_session: 2c1f7e0a-5b3d-4e8f-9a61-7d0b2e4c9f13
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""
ANSWER = (
    "<!-- patch:exchange -->\\n### Re: sum\\n\\nIt is 4.\\n<!-- /patch:exchange -->\\n"
)


def bash(command: str) -> ToolUse:
    """A Bash tool call, as the skill tells claude to make."""
    return ToolUse("Bash", {"command": command, "description": command[:40]})


def test_route_runs_the_skill_in_the_real_tui(
    tmux: Tmux, project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(SKILL_DOC)
    installed = agent_doc("skill", "install", cwd=project)
    assert installed.returncode == 0, installed.stderr
    model.script(
        bash("agent-doc preflight plan.md"),
        bash(
            f"printf '{ANSWER}' | agent-doc write plan.md --origin skill "
            '--baseline-file "$(agent-doc skill baseline plan.md)"'
        ),
        bash("agent-doc commit plan.md"),
        Text("Answered in plan.md."),
    )
    env = {**claude_env, "PATH": f"{Path(sys.executable).parent}:{claude_env['PATH']}"}
    pane = start_claude(tmux, project, env, "--allowedTools", "Bash")
    claim(doc, pane=pane, tmux=tmux)
    routed = agent_doc("route", "plan.md", cwd=project)
    assert routed.returncode == 0, routed.stderr
    calls = model.wait_for_calls(4, timeout=90)
    asked = calls[0].texts()
    assert "agent-doc: answer a session document" in asked  # the skill, loaded
    assert "plan.md" in asked
    preflight_result = calls[1].body["messages"][-1]["content"][0]
    assert '"diff"' in str(preflight_result["content"])  # preflight's JSON
    screen_with(tmux, pane, "Answered in plan.md.")
    text = doc.read_text()
    assert text.count("It is 4.") == 1
    assert text.index("What is 2 + 2?") < text.index("### Re: sum")
    log = subprocess.run(["git", "-C", str(project), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert log.count("agent-doc(plan)") >= 1
    shown = subprocess.run(["git", "-C", str(project), "show", "HEAD:plan.md"],
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "It is 4." in shown
