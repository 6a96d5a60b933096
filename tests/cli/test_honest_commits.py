"""Honest per-turn commits through the real CLI (issue 27, Deliver 4).

``commit`` and ``preflight`` run every turn (the Claude skill runs both): a turn
with nothing new must leave ``git log`` as it was, and the boundary must keep
its id while it stays where it is.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
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


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


@pytest.fixture
def answered(project: Path) -> Path:
    """A document after one real turn (fake agent): answered and committed."""
    configure_fake_claude()
    doc = project / "plan.md"
    doc.write_text(DOC)
    env = {"FAKE_CLAUDE_REPLY": "### Re: sum\n\n4."}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    assert "### Re: sum (HEAD)" in git(project, "show", "HEAD:plan.md")
    return doc


def test_commit_and_preflight_with_nothing_new_add_no_commit(answered: Path) -> None:
    project = answered.parent
    before = commit_count(project)
    snapshot = StateStore.for_document(answered).load_snapshot(answered)
    for _ in range(2):
        result = cli(project, "commit", "plan.md")
        assert result.returncode == 0, result.stderr
        assert "nothing to commit" in result.stdout + result.stderr
    for _ in range(2):
        result = cli(project, "preflight", "plan.md")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["committed"] is False
    assert commit_count(project) == before
    # The snapshot (and its boundary id) did not move either.
    assert StateStore.for_document(answered).load_snapshot(answered) == snapshot
    assert "### Re: sum (HEAD)" in git(project, "show", "HEAD:plan.md")


def test_the_next_answer_is_committed_once(answered: Path) -> None:
    project = answered.parent
    before = commit_count(project)
    answered.write_text(
        answered.read_text().replace(
            "<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->"
        )
    )
    result = cli(
        project, "run", "plan.md", env={"FAKE_CLAUDE_REPLY": "### Re: six\n\n6."}
    )
    assert result.returncode == 0, result.stderr
    assert commit_count(project) == before + 1
    head = git(project, "show", "HEAD:plan.md")
    assert "### Re: six (HEAD)" in head
    assert "### Re: sum (HEAD)" not in head
    for command in ("commit", "preflight", "commit"):
        assert cli(project, command, "plan.md").returncode == 0
    assert commit_count(project) == before + 1
