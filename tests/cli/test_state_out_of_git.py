"""``.agent-doc/`` runtime state stays out of git; shared settings do not (issue 27).

A real repository, ``agent-doc init``, a real turn with a stand-in agent, a
write, a hook event and ``gc``: after ``git add -A`` only the project settings
a team shares are staged from ``.agent-doc/``. ``audit-docs`` passes on a
project fresh from ``init``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_doc.store.gitignore import GITIGNORE_TEXT
from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:status -->
idle
<!-- /agent:status -->

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
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "Test")
    configure_fake_claude()
    return root


def test_git_add_all_stages_only_shared_settings(repo: Path) -> None:
    assert cli(repo, "init").returncode == 0
    assert (repo / ".agent-doc" / ".gitignore").read_text() == GITIGNORE_TEXT
    (repo / ".agent-doc" / "config.toml").write_text('default_agent = "fake"\n')
    (repo / ".agent-doc" / "components.toml").write_text("[status]\nmode = 'replace'\n")
    (repo / "plan.md").write_text(DOC)
    result = cli(repo, "run", "plan.md", env={"FAKE_CLAUDE_REPLY": "### Re: sum\n\n4."})
    assert result.returncode == 0, result.stderr
    write = cli(
        repo,
        "write",
        "plan.md",
        stdin="<!-- patch:status -->\nbusy\n<!-- /patch:status -->\n",
    )
    assert write.returncode == 0, write.stderr
    assert cli(repo, "hook", "fire", "post_write", "plan.md").returncode == 0
    assert cli(repo, "gc").returncode == 0
    state = {
        p.relative_to(repo).as_posix()
        for p in (repo / ".agent-doc").rglob("*")
        if p.is_file()
    }
    assert any(p.startswith(".agent-doc/snapshots/") for p in state), state
    assert len(state) > 4, state  # runtime state was written
    git(repo, "add", "-A")
    staged = set(git(repo, "diff", "--cached", "--name-only").split())
    assert {p for p in staged if p.startswith(".agent-doc/")} == {
        ".agent-doc/.gitignore",
        ".agent-doc/config.toml",
        ".agent-doc/components.toml",
    }
    assert "plan.md" in staged or "plan.md" in git(repo, "ls-files")


def test_an_existing_project_gets_the_file_without_losing_an_edited_one(
    repo: Path,
) -> None:
    state = repo / ".agent-doc"
    (state / "snapshots").mkdir(parents=True)  # a project from before the file
    (state / "snapshots" / "x.md").write_text("state\n")
    assert cli(repo, "gc").returncode == 0
    assert (state / ".gitignore").read_text() == GITIGNORE_TEXT
    (state / ".gitignore").write_text("snapshots/\n")  # the person's own rules
    assert cli(repo, "init").returncode == 0
    (repo / "plan.md").write_text(DOC)
    assert cli(repo, "commit", "plan.md").returncode == 0
    assert (state / ".gitignore").read_text() == "snapshots/\n"


def test_the_per_turn_commit_adds_the_file_to_an_old_project(repo: Path) -> None:
    (repo / ".agent-doc").mkdir()
    (repo / "plan.md").write_text(DOC)
    result = cli(repo, "commit", "plan.md")
    assert result.returncode == 0, result.stderr
    assert (repo / ".agent-doc" / ".gitignore").read_text() == GITIGNORE_TEXT
    assert git(repo, "ls-files") == "plan.md\n"  # the commit took only the document


def test_audit_docs_passes_on_a_project_fresh_from_init(repo: Path) -> None:
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    init = cli(repo, "init")
    assert init.returncode == 0, init.stderr
    assert (repo / ".claude" / "skills" / "agent-doc" / "SKILL.md").is_file()
    result = cli(repo, "audit-docs")
    assert result.returncode == 0, result.stdout + result.stderr
    # …and still after a turn filled .agent-doc/ with state.
    (repo / "plan.md").write_text(DOC)
    assert cli(repo, "run", "plan.md", env={"FAKE_CLAUDE_REPLY": "4."}).returncode == 0
    assert cli(repo, "audit-docs").returncode == 0


def test_init_warns_when_git_already_tracks_runtime_state(repo: Path) -> None:
    state = repo / ".agent-doc"
    (state / "snapshots").mkdir(parents=True)
    (state / "snapshots" / "abc.md").write_text("old state\n")
    (state / "config.toml").write_text('default_agent = "fake"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "state committed before agent-doc ignored it")
    result = cli(repo, "init")
    assert result.returncode == 0, result.stderr
    warning = [ln for ln in result.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warning) == 1
    assert "1 runtime file" in warning[0]
    assert "git rm -r --cached" in warning[0]
    as_json = cli(repo, "init", "--json")
    assert json.loads(as_json.stdout)["tracked_state"] == [
        ".agent-doc/snapshots/abc.md"
    ]
    # The advice works: state untracked, settings kept, nothing lost on disk.
    subprocess.run(
        ["sh", "-c", "git rm -r --cached --quiet .agent-doc && git add .agent-doc"],
        cwd=repo,
        check=True,
    )
    assert set(git(repo, "diff", "--cached", "--name-status").splitlines()) == {
        "D\t.agent-doc/snapshots/abc.md",
        "A\t.agent-doc/.gitignore",
    }
    assert (state / "snapshots" / "abc.md").read_text() == "old state\n"
    assert "warning:" not in cli(repo, "init").stderr
