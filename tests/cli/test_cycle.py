"""The agent cycle through the real CLI: run, preflight, commit, clean, history.

The agent is ``tests/data/fake_claude.py`` configured as a custom backend; git
is a real repository in a temp dir.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def fake_agent(tmp_path: Path) -> Path:
    configure_fake_claude()
    return tmp_path / "agent-log.jsonl"


def test_run_writes_answer_stores_resume_and_commits(
    project: Path, fake_agent: Path
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    env = {"FAKE_CLAUDE_LOG": str(fake_agent), "FAKE_CLAUDE_REPLY": "### Re: sum\n\n4."}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert text.index("What is 2 + 2?") < text.index("### Re: sum") < text.index("4.")
    assert "resume: sess-" in text
    assert text.count("<!-- agent:boundary:") == 1
    call = json.loads(fake_agent.read_text().splitlines()[0])
    assert "--continue" in call["argv"]
    assert "--fork-session" in call["argv"]
    assert "<document>" in call["prompt"]
    assert "<diff>" not in call["prompt"]
    assert git(project, "log", "--format=%s").startswith("agent-doc(plan): ")
    assert "### Re: sum (HEAD)" in git(project, "show", "HEAD:plan.md")
    # Second cycle: the user asks again; the prompt now carries the diff and --resume.
    doc.write_text(
        doc.read_text().replace(
            "<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->"
        )
    )
    second = cli(project, "run", "plan.md", env={**env, "FAKE_CLAUDE_REPLY": "6."})
    assert second.returncode == 0, second.stderr
    call2 = json.loads(fake_agent.read_text().splitlines()[1])
    assert "--resume" in call2["argv"]
    assert "<diff>" in call2["prompt"]
    assert "And 3 + 3?" in call2["prompt"]
    final = doc.read_text()
    assert final.index("And 3 + 3?") < final.index("6.")


def test_run_dry_run_prints_prompt_with_agents_md(
    project: Path, fake_agent: Path
) -> None:
    (project / "plan.md").write_text(DOC)
    (project / "AGENTS.md").write_text("Always answer in French.\n")
    result = cli(project, "run", "plan.md", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "<AGENTS_MD>\nAlways answer in French.\n</AGENTS_MD>" in result.stdout
    assert "What is 2 + 2?" in result.stdout
    assert not fake_agent.exists()
    info = cli(project, "instructions", "plan.md", "--json")
    assert json.loads(info.stdout)["inherited"] is False


@pytest.mark.parametrize(
    ("mode", "needle"),
    [
        ("error", "reported an error"),
        ("badjson", "invalid JSON"),
        ("exit1", "exited with status 1"),
    ],
)
def test_agent_failures_leave_document_untouched(
    project: Path, fake_agent: Path, mode: str, needle: str
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(project, "run", "plan.md", env={"FAKE_CLAUDE_MODE": mode})
    assert result.returncode == 1
    assert needle in result.stderr
    assert result.stderr.count("\n") == 1
    assert doc.read_text() == DOC


def test_missing_claude_is_named_before_anything_happens(project: Path) -> None:
    text = DOC.replace("agent: fake\n", "agent: claude\n")
    (project / "plan.md").write_text(text)
    git(project, "add", "plan.md")
    git(project, "commit", "-qm", "start")
    result = cli(project, "run", "plan.md", "-b", env={"PATH": "/nonexistent"})
    assert result.returncode == 1
    assert result.stderr.startswith(
        "agent-doc: agent 'claude' is not installed: 'claude' is not on PATH; "
        "install Claude Code (https://docs.anthropic.com/claude-code), or pick "
        "another agent with --agent NAME"
    ), result.stderr
    assert result.stderr.count("\n") == 1
    assert (project / "plan.md").read_text() == text
    # Checked before the branch is created and before the status changes.
    assert git(project, "branch", "--list", "agent-doc/*") == ""
    assert "agent:status" not in (project / "plan.md").read_text()


def test_missing_custom_agent_names_its_config(project: Path, fake_agent: Path) -> None:
    config = global_config_path()
    config.write_text('[agents.fake]\ncommand = "/no/such/agent-binary"\n')
    (project / "plan.md").write_text(DOC)
    result = cli(project, "run", "plan.md")
    assert result.returncode == 1
    assert (
        "agent 'fake' is not installed: '/no/such/agent-binary' is not on PATH; "
        "install '/no/such/agent-binary' or fix its path, or fix [agents.fake] in "
        f"{config}"
    ) in result.stderr
    assert (project / "plan.md").read_text() == DOC


def test_preflight_json_shape(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    (project / ".agent-doc" / "claims.log").write_text("Claimed plan.md for pane %3\n")
    result = cli(project, "preflight", "plan.md", "--no-wait")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {
        "recovered",
        "committed",
        "claims",
        "diff",
        "no_changes",
        "document",
        "document_form",
        "prompt_bytes",
        "prompt_tokens_estimate",
        "prompt_mode",
        "suggest_compact",
    }
    assert data["document_form"] == "full"
    assert data["prompt_mode"] == "full"  # the first turn: the whole document
    assert data["prompt_bytes"] > len(DOC)
    assert data["claims"] == ["Claimed plan.md for pane %3"]
    assert data["no_changes"] is False
    assert "+What is 2 + 2?" in data["diff"]
    assert data["document"] == DOC
    assert data["committed"] is True
    assert (project / ".agent-doc" / "claims.log").read_text() == ""
    again = json.loads(cli(project, "preflight", "plan.md", "--no-wait").stdout)
    assert again["claims"] == []
    assert again["committed"] is False


def test_commit_clean_history_cli(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    assert cli(project, "commit", "plan.md").returncode == 0
    doc.write_text(DOC + "\nmore\n")
    assert cli(project, "commit", "plan.md").returncode == 0
    nothing = cli(project, "commit", "plan.md", "--json")
    assert json.loads(nothing.stdout) == {
        "committed": False,
        "message": "nothing to commit",
    }
    hist = json.loads(cli(project, "history", "plan.md", "--json").stdout)
    assert len(hist) == 2
    squash = cli(project, "clean", "plan.md", "--json")
    assert json.loads(squash.stdout)["squashed"] is True
    assert len(git(project, "log", "--format=%H").split()) == 1


def test_commit_outside_git_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "d.md").write_text(DOC)
    result = cli(tmp_path, "commit", "d.md")
    assert result.returncode == 1
    assert result.stderr.startswith("agent-doc: not a git repository")


def test_history_restore_prepends_old_exchange_once(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    assert cli(project, "commit", "plan.md").returncode == 0
    first = json.loads(cli(project, "history", "plan.md", "--json").stdout)[0]["sha"]
    doc.write_text(DOC.replace("What is 2 + 2?", "A newer question"))
    result = cli(project, "history", "plan.md", "--restore", first[:12])
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert text.count("What is 2 + 2?") == 1
    assert text.count("A newer question") == 1
    assert text.index("What is 2 + 2?") < text.index("A newer question")
    bad = cli(project, "history", "plan.md", "--restore", "0000000")
    assert bad.returncode == 1
    assert "no commit" in bad.stderr


def test_run_with_branch_switches_to_agent_doc_branch(
    project: Path, fake_agent: Path
) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    git(project, "add", "plan.md")
    git(project, "commit", "-qm", "start")
    result = cli(project, "run", "plan.md", "-b", env={"FAKE_CLAUDE_REPLY": "ok."})
    assert result.returncode == 0, result.stderr
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "agent-doc/plan"
    assert git(project, "log", "-1", "--format=%s").startswith("agent-doc(plan): ")
