"""``agent-doc prompt`` (§7.14) reads and answers the real Claude Code dialog.

The pinned ``claude`` runs interactively in a pane of a private tmux server,
with ``--permission-mode default`` (claude 2.1.x otherwise decides its own
prompts), its onboarding and folder trust answered in its private
``~/.claude.json``. The scripted model asks for a Bash tool call; claude shows
its permission dialog; ``agent-doc prompt FILE`` reports it as JSON and
``--answer 1`` presses "Yes".
"""

from __future__ import annotations

import json
import shlex
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


def start_claude(tmux: Tmux, project: Path, env: dict[str, str]) -> str:
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
    command = f"exec env {assigned} claude --permission-mode default"
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
