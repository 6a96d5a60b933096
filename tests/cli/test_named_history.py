"""History you can name, through the real CLI on a real git repository:
``compact``'s tags, ``log``, ``show`` and ``diff --from/--to``, reaching the
turns ``compact`` moved to the archive."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import cli

HEAD = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
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


def commit_turns(root: Path, upto: int) -> None:
    turns = "".join(
        f"### Re: question {i}\n\nAnswer {i}.\n\nQuestion {i + 1}?\n"
        for i in range(1, upto + 1)
    )
    (root / "plan.md").write_text(HEAD + turns + "<!-- /agent:exchange -->\n")
    git(root, "add", "plan.md")
    git(root, "commit", "-q", "-m", f"plan: {upto} turns")


@pytest.fixture
def compacted(project: Path) -> Path:
    """plan.md committed at 6 then 12 turns, then compacted to the last 3."""
    commit_turns(project, 6)
    commit_turns(project, 12)
    result = cli(project, "compact", "plan.md", "--keep", "3", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tag"] == "agent-doc/plan/pre-compact-1"
    return project


def test_compact_tags_the_last_commit_before_it_compacts(compacted: Path) -> None:
    tagged = git(compacted, "rev-parse", "agent-doc/plan/pre-compact-1^{commit}")
    assert (
        git(compacted, "log", "-1", "--format=%s", tagged.strip()) == "plan: 12 turns\n"
    )
    head = git(compacted, "rev-parse", "HEAD").strip()
    assert tagged.strip() != head  # the compaction is the commit after it
    assert answers((compacted / "plan.md").read_text()) == [10, 11, 12]
    # a local tag: no remote is configured, nothing was pushed anywhere
    assert git(compacted, "remote") == ""


def test_log_lists_versions_with_the_tags_beside_them(compacted: Path) -> None:
    result = cli(compacted, "log", "plan.md")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["3", "2", "1"]  # newest first
    assert lines[1].endswith("[agent-doc/plan/pre-compact-1]")
    assert "plan: 12 turns" in lines[1]
    assert "[" not in lines[0]
    assert "[" not in lines[2]
    entries = json.loads(cli(compacted, "log", "plan.md", "--json").stdout)
    assert entries[1]["tags"] == ["agent-doc/plan/pre-compact-1"]
    assert [e["number"] for e in entries] == [3, 2, 1]


def test_show_reaches_the_compacted_turns(compacted: Path) -> None:
    by_tag = cli(compacted, "show", "plan.md", "--tag", "pre-compact-1")
    assert by_tag.returncode == 0, by_tag.stderr
    assert answers(by_tag.stdout) == list(range(1, 13))
    full = cli(compacted, "show", "plan.md", "--tag", "agent-doc/plan/pre-compact-1")
    assert full.stdout == by_tag.stdout
    assert cli(compacted, "show", "plan.md", "--back", "1").stdout == by_tag.stdout
    assert cli(compacted, "show", "plan.md", "--at", "2").stdout == by_tag.stdout
    assert answers(cli(compacted, "show", "plan.md", "--at", "1").stdout) == list(
        range(1, 7)
    )
    now = cli(compacted, "show", "plan.md", "--back", "0").stdout
    assert now == (compacted / "plan.md").read_text()


def test_diff_from_a_tag_shows_the_archived_turns_going(compacted: Path) -> None:
    result = cli(compacted, "diff", "plan.md", "--from", "pre-compact-1")
    assert result.returncode == 0, result.stderr
    removed = [line for line in result.stdout.splitlines() if line.startswith("-")]
    assert "-Answer 1." in removed
    assert "-Answer 9." in removed
    assert "-Answer 10." not in removed
    assert result.stdout.startswith("--- plan.md@")
    between = cli(compacted, "diff", "plan.md", "--from", "1", "--to", "~1")
    added = [line for line in between.stdout.splitlines() if line.startswith("+")]
    assert "+Answer 12." in added
    assert "+Answer 6." not in added
    same = cli(compacted, "diff", "plan.md", "--from", "~0")
    assert same.returncode == 0
    assert same.stdout == ""
    assert "no changes" in same.stderr
    # a line typed since, not committed, is in the diff to "now"
    with (compacted / "plan.md").open("a") as fh:
        fh.write("typed after\n")
    typed = cli(compacted, "diff", "plan.md", "--from", "~0")
    assert "+typed after" in typed.stdout.splitlines()


def test_history_archived_names_the_tags(compacted: Path) -> None:
    result = cli(compacted, "history", "plan.md", "--archived")
    assert result.returncode == 0, result.stderr
    assert "agent-doc/plan/pre-compact-1" in result.stderr
    assert "### Re: question 1" in result.stdout


def test_a_second_compaction_takes_the_next_number_and_names_can_be_given(
    compacted: Path,
) -> None:
    commit_turns(compacted, 12)  # the full text again, as if restored
    again = cli(compacted, "compact", "plan.md", "--keep", "3", "--json")
    assert json.loads(again.stdout)["tag"] == "agent-doc/plan/pre-compact-2"
    commit_turns(compacted, 12)
    named = cli(
        compacted, "compact", "plan.md", "--keep", "3", "--tag", "before-v2", "--json"
    )
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["tag"] == "before-v2"
    assert answers(
        cli(compacted, "show", "plan.md", "--tag", "before-v2").stdout
    ) == list(range(1, 13))
    commit_turns(compacted, 12)
    none = cli(compacted, "compact", "plan.md", "--keep", "3", "--no-tag", "--json")
    assert json.loads(none.stdout)["tag"] is None
    tags = git(compacted, "tag", "--list").split()
    assert sorted(tags) == [
        "agent-doc/plan/pre-compact-1",
        "agent-doc/plan/pre-compact-2",
        "before-v2",
    ]


def test_nothing_to_compact_leaves_no_tag(project: Path) -> None:
    commit_turns(project, 2)
    result = cli(project, "compact", "plan.md", "--keep", "5", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tag"] is None
    assert git(project, "tag", "--list") == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "plan.md"], "give exactly one of --back N, --at N or --tag NAME"),
        (["show", "plan.md", "--back", "0", "--at", "1"], "give exactly one"),
        (["show", "plan.md", "--tag", "nope"], "no tag 'nope' for plan.md"),
        (["show", "plan.md", "--at", "9"], "plan.md has 3 committed versions"),
        (["diff", "plan.md", "--to", "1"], "--to needs --from"),
        (["diff", "plan.md", "--from", "no-such-ref"], "no version 'no-such-ref'"),
        (["compact", "plan.md", "--tag", "bad..name"], "not a valid tag name"),
    ],
)
def test_bad_names_are_one_line_and_change_nothing(
    compacted: Path, args: list[str], message: str
) -> None:
    before = (compacted / "plan.md").read_bytes()
    tags = git(compacted, "tag", "--list")
    if args[0] == "compact":
        commit_turns(compacted, 12)
        before = (compacted / "plan.md").read_bytes()
    result = cli(compacted, *args)
    assert result.returncode == 1
    assert result.stderr.startswith("agent-doc: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert (compacted / "plan.md").read_bytes() == before
    assert git(compacted, "tag", "--list") == tags
