"""Selective commit, squash and history against real git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_doc.cycle.commit import commit_document
from agent_doc.cycle.commit import document_history
from agent_doc.cycle.commit import restored_exchange
from agent_doc.cycle.commit import squash_document_commits
from agent_doc.document.headings import mark_new_headings
from agent_doc.document.headings import strip_head_markers
from agent_doc.errors import VcsError
from agent_doc.store.state import StateStore


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


DOC = """---
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

Question one?
<!-- /agent:exchange -->
"""


def test_new_headings_by_occurrence_count() -> None:
    head = "# A\n### Re: x\n"
    snap = "# A\n### Re: x\n### Re: x\n```\n# not a heading\n```\n## New\n"
    marked = mark_new_headings(snap, head)
    assert marked.split("\n") == [
        "# A",
        "### Re: x",
        "### Re: x (HEAD)",
        "```",
        "# not a heading",
        "```",
        "## New (HEAD)",
        "",
    ]
    assert strip_head_markers(marked) == snap


def test_bold_pseudo_headers_when_no_headings() -> None:
    assert mark_new_headings("**Answer**\ntext\n", "") == "**Answer** (HEAD)\ntext\n"


def test_commit_stages_snapshot_not_working_tree(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    store = StateStore(project)
    response = DOC.replace(
        "Question one?\n", "Question one?\n### Re: Question one\nAnswer.\n"
    )
    store.save_snapshot(doc, response)
    user_text = response + "\nMy unsaved follow-up\n"
    doc.write_text(user_text)
    committed, message = commit_document(doc)
    assert committed
    assert message.startswith("agent-doc(plan): ")
    blob = git(project, "show", "HEAD:plan.md")
    assert "### Re: Question one (HEAD)" in blob
    assert "# Plan (HEAD)" in blob
    assert "My unsaved follow-up" not in blob
    assert doc.read_text() == user_text
    assert "(HEAD)" not in (store.load_snapshot(doc) or "")
    assert "<!-- agent:boundary:" in (store.load_snapshot(doc) or "")
    # Second commit with no new response: headings already in HEAD lose the mark.
    store.save_snapshot(doc, response + "more\n")
    assert commit_document(doc)[0]
    assert "(HEAD)" not in git(project, "show", "HEAD:plan.md")


def test_other_staged_files_are_left_alone(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    other = project / "other.txt"
    other.write_text("staged by the user\n")
    git(project, "add", "other.txt")
    assert commit_document(doc)[0]
    assert "other.txt" not in git(project, "show", "--name-only", "--format=", "HEAD")
    assert "A  other.txt" in git(project, "status", "--porcelain")


def test_nothing_to_commit(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    assert commit_document(doc)[0]
    assert commit_document(doc) == (False, "nothing to commit")


def test_refuses_detached_head_and_merges(project: Path, tmp_path: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    commit_document(doc)
    git(project, "checkout", "-q", "--detach")
    doc.write_text(DOC + "x\n")
    with pytest.raises(VcsError, match="detached"):
        commit_document(doc)
    git(project, "checkout", "-q", "-")
    (project / ".git" / "MERGE_HEAD").write_text("0" * 40 + "\n")
    with pytest.raises(VcsError, match="merge is in progress"):
        commit_document(doc)
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "d.md").write_text("x")
    with pytest.raises(VcsError, match="not a git repository"):
        commit_document(loose / "d.md")


def test_squash_and_history(project: Path) -> None:
    doc = project / "plan.md"
    store = StateStore(project)
    for n in range(3):
        text = DOC.replace("Question one?\n", f"Question one?\nanswer {n}\n")
        store.save_snapshot(doc, text)
        doc.write_text(text)
        assert commit_document(doc)[0]
    history = document_history(doc)
    assert len(history) == 3
    assert "answer 2" in (history[0].exchange or "")
    assert (
        history[0].preview().startswith("<!-- agent:boundary:") or history[0].preview()
    )
    current = doc.read_text()
    restored = restored_exchange(doc, history[-1].sha[:10], current)
    assert restored.index("answer 0") < restored.index("answer 2")
    assert squash_document_commits(doc) == (True, "agent-doc(plan): squashed 3 commits")
    assert len(git(project, "log", "--format=%H").split()) == 1
    with pytest.raises(VcsError, match="no commit"):
        restored_exchange(doc, "deadbeef", current)


def test_commit_on_a_branch_with_history_odd_paths(project: Path) -> None:
    """After the first commit, commits are written as loose objects: the
    user's index follows, identity is git's, objects stay loose, fsck is clean."""
    folder = project / 'notes "draft" é'
    folder.mkdir()
    doc = folder / "plan v2.md"
    doc.write_text(DOC)
    assert commit_document(doc)[0]  # the repository's first commit
    doc.write_text(DOC + "Second question?\n")
    committed, message = commit_document(doc)
    assert committed
    rel = 'notes "draft" é/plan v2.md'
    assert git(project, "show", f"HEAD:{rel}").endswith("Second question?\n")
    assert git(project, "log", "-1", "--format=%an <%ae>|%cn|%s") == (
        f"Test <t@example.invalid>|Test|{message}\n"
    )
    assert git(project, "rev-list", "--count", "HEAD") == "2\n"
    assert git(project, "status", "--porcelain", "--", rel) == ""  # index follows
    assert not list((project / ".git" / "objects" / "pack").glob("*.pack"))
    git(project, "fsck", "--strict")
    assert commit_document(doc) == (False, "nothing to commit")
    assert git(project, "rev-list", "--count", "HEAD") == "2\n"


def test_a_branch_moved_meanwhile_is_not_overwritten(project: Path) -> None:
    """The branch moves only from the commit the new one builds on."""
    from agent_doc.cycle import gitcli
    from agent_doc.cycle import gitcommit

    doc = project / "plan.md"
    doc.write_text(DOC)
    assert commit_document(doc)[0]
    tree = gitcli.open_work_tree(doc)
    (project / "other.txt").write_text("someone else\n")
    git(project, "add", "other.txt")
    git(project, "commit", "-qm", "someone else's commit")
    moved = git(project, "rev-parse", "HEAD")
    staged = git(project, "ls-files", "-s")
    with pytest.raises(VcsError, match=r"could not commit plan\.md"):
        gitcommit.commit_blob(tree, "plan.md", b"stale view\n", "agent-doc(plan): x")
    assert git(project, "rev-parse", "HEAD") == moved
    assert git(project, "ls-files", "-s") == staged  # the index did not follow
    assert not (project / ".git" / "index.lock").exists()
