"""``agent-doc compact`` through the real CLI on a real git repository.

The conversation's last turn is answered by ``tests/data/fake_claude.py``
through ``run``, so the snapshot, CRDT state and commit are the real ones.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

HEAD = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:exchange patch=append -->
## User

Question 1?
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def answers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^### Re: question (\d+)$", text, re.M)]


@pytest.fixture
def conversation(project: Path) -> Path:
    """plan.md with 30 answered turns, the last one answered by ``run``."""
    configure_fake_claude()
    turns = "".join(
        f"### Re: question {i}\n\nAnswer {i}.\n\nQuestion {i + 1}?\n"
        for i in range(1, 30)
    )
    doc = project / "plan.md"
    doc.write_text(HEAD + turns + "<!-- /agent:exchange -->\n")
    env = {"FAKE_CLAUDE_REPLY": "### Re: question 30\n\nAnswer 30."}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 0, result.stderr
    assert answers(doc.read_text()) == list(range(1, 31))
    return doc


def test_compact_moves_older_turns_to_the_archive_and_commits_both(
    project: Path, conversation: Path
) -> None:
    result = cli(project, "compact", "plan.md", "--keep", "5")
    assert result.returncode == 0, result.stderr
    assert "moved 25 turns of plan.md to plan.archive.md" in result.stderr
    archive = project / "plan.archive.md"
    assert answers(archive.read_text()) == list(range(1, 26))  # in order
    assert archive.read_text().startswith("# Archive of plan.md\n")
    assert "Question 1?" in archive.read_text()  # the opening question too
    text = conversation.read_text()
    assert answers(text) == list(range(26, 31))
    link = "*[25 earlier turns archived in plan.archive.md](plan.archive.md)*"
    assert text.count(link) == 1
    assert text.index("<!-- agent:exchange") < text.index(link)
    assert text.index(link) < text.index("### Re: question 26")
    # Nothing new to send: the snapshot was compacted the same way.
    diff = cli(project, "diff", "plan.md")
    assert diff.returncode == 0
    assert diff.stdout == ""
    assert diff.stderr == "no changes\n"
    # One commit holds both files.
    changed = git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == ["plan.archive.md", "plan.md"]
    assert link in git(project, "show", "HEAD:plan.md")
    assert answers(git(project, "show", "HEAD:plan.archive.md")) == list(range(1, 26))
    assert git(project, "status", "--porcelain", "plan.archive.md") == ""


def test_compacting_again_appends_to_the_archive(
    project: Path, conversation: Path
) -> None:
    assert cli(project, "compact", "plan.md", "--keep", "20").returncode == 0
    second = cli(project, "compact", "plan.md", "--keep", "5", "--json")
    assert second.returncode == 0, second.stderr
    data = json.loads(second.stdout)
    assert data["moved"] == 15
    assert data["archived_total"] == 25
    assert data["committed"] is True
    archive = (project / "plan.archive.md").read_text()
    assert answers(archive) == list(range(1, 26))
    assert archive.count("# Archive of plan.md") == 1
    assert archive.count("<!-- compacted from plan.md at ") == 2
    text = conversation.read_text()
    assert text.count("earlier turns archived in") == 1
    assert "*[25 earlier turns archived in plan.archive.md]" in text
    assert cli(project, "diff", "plan.md").stdout == ""


def test_nothing_to_compact_changes_nothing(project: Path, conversation: Path) -> None:
    before = conversation.read_text()
    head = git(project, "rev-parse", "HEAD")
    result = cli(project, "compact", "plan.md", "--keep", "30")
    assert result.returncode == 0
    assert "nothing to compact" in result.stderr
    assert conversation.read_text() == before
    assert not (project / "plan.archive.md").exists()
    assert git(project, "rev-parse", "HEAD") == head


def test_default_keep_and_archive_folder_come_from_the_config(
    project: Path, conversation: Path
) -> None:
    (project / ".agent-doc" / "config.toml").write_text(
        'compact_keep_turns = 3\ncompact_archive_dir = "archive"\n'
    )
    result = cli(project, "compact", "plan.md", "--no-git")
    assert result.returncode == 0, result.stderr
    archive = project / "archive" / "plan.archive.md"
    assert answers(archive.read_text()) == list(range(1, 28))
    assert "(../plan.md)" in archive.read_text()  # links back to the document
    text = conversation.read_text()
    assert "(archive/plan.archive.md)*" in text
    assert answers(text) == [28, 29, 30]
    assert "plan.archive.md" not in git(project, "show", "--name-only", "HEAD")


def test_unsent_typing_below_is_kept_and_still_unsent(
    project: Path, conversation: Path
) -> None:
    conversation.write_text(
        conversation.read_text().replace(
            "<!-- /agent:exchange -->", "Typed, not sent yet.\n<!-- /agent:exchange -->"
        )
    )
    assert cli(project, "compact", "plan.md", "--keep", "5").returncode == 0
    assert "Typed, not sent yet." in conversation.read_text()
    diff = cli(project, "diff", "plan.md").stdout
    assert "+Typed, not sent yet." in diff
    shown = [int(n) for n in re.findall(r"question (\d+)", diff)]
    assert all(n > 25 for n in shown)  # no archived turn in it


def test_unsent_edits_in_old_turns_refuse_and_change_nothing(
    project: Path, conversation: Path
) -> None:
    conversation.write_text(
        conversation.read_text().replace("Answer 3.", "Answer 3, amended.")
    )
    before = conversation.read_text()
    result = cli(project, "compact", "plan.md", "--keep", "5")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "hold edits the agent has not seen" in result.stderr
    assert conversation.read_text() == before
    assert not (project / "plan.archive.md").exists()


def test_bad_keep_is_a_usage_error(project: Path, conversation: Path) -> None:
    before = conversation.read_text()
    result = cli(project, "compact", "plan.md", "--keep", "-1")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert conversation.read_text() == before


def test_history_and_turn_diffs_reach_archived_turns(
    project: Path, conversation: Path
) -> None:
    from agent_doc.editor.turn_history import turn_commit

    answered = git(project, "rev-parse", "HEAD").strip()  # run's commit
    assert cli(project, "compact", "plan.md", "--keep", "5").returncode == 0
    listed = cli(project, "history", "plan.md", "--archived", "--json")
    assert listed.returncode == 0, listed.stderr
    headings = [a["heading"] for a in json.loads(listed.stdout)]
    assert headings == [f"### Re: question {i}" for i in range(1, 26)]
    plain = cli(project, "history", "plan.md")
    assert "agent-doc history plan.md --archived" in plain.stderr
    # The turn lens of an archived answer shows the commit that wrote it into
    # the document, not the compaction that moved it.
    archive = project / "plan.archive.md"
    found = turn_commit(archive, "### Re: question 3", 0)
    assert found.sha == answered
    assert "plan.md" in found.diff
    assert "plan.archive.md" not in found.diff


def test_an_unwritable_document_refuses_before_the_archive_is_written(
    project: Path, conversation: Path
) -> None:
    """Regression (issue 35): the refusal came after the archive was written,
    and the retry archived the same turns a second time."""
    before = conversation.read_text()
    conversation.chmod(0o444)
    try:
        refused = cli(project, "compact", "plan.md", "--keep", "5")
    finally:
        conversation.chmod(0o644)
    assert refused.returncode != 0
    assert refused.stderr.count("\n") == 1
    assert "read-only" in refused.stderr
    assert conversation.read_text() == before
    assert not (project / "plan.archive.md").exists()
    retried = cli(project, "compact", "plan.md", "--keep", "5")
    assert retried.returncode == 0, retried.stderr
    archive = (project / "plan.archive.md").read_text()
    assert answers(archive) == list(range(1, 26))  # each turn once
    assert answers(conversation.read_text()) == list(range(26, 31))
