"""The per-turn commit's in-process git objects make the commit git would make.

The commit on a branch with history writes its blob, trees and commit as loose
objects itself (:mod:`agent_doc.cycle.gitobjects`); a repository whose config
asks more of object files goes through ``git fast-import``. Both must make the
same commit, byte for byte, in real repositories.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.cycle import gitcli
from agent_doc.cycle import gitcommit


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def history(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one commit of files whose names test git's tree order."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", "1700000000 +0100")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "1700000100 +0100")
    for rel in ("a/x", "a.b", "a-b", "a0", "plan.md", "é/x", "n/old.md"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(f"{rel}\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "init")
    return project


def _commit(root: Path, rel: str, data: bytes) -> str:
    result = gitcommit.commit_blob(
        gitcli.open_work_tree(root), rel, data, "agent-doc(plan): 2026-01-01 10:00:00"
    )
    assert result.committed
    assert result.sha == git(root, "rev-parse", "HEAD").strip()
    git(root, "fsck", "--strict")
    return result.sha


@pytest.mark.parametrize(
    "rel",
    ["plan.md", "a/new.md", "a.md", "n/e/w é.md", "é/x", "zz", "a!.md", "a-b/x.md"],
)
def test_loose_objects_make_the_commit_fast_import_makes(
    history: Path, tmp_path: Path, rel: str
) -> None:
    other = tmp_path / "other"
    shutil.copytree(history, other)
    git(other, "config", "core.fsyncObjectFiles", "false")  # → fast-import
    data = "# Plan\n\nanswer é\n".encode()
    ours = _commit(history, rel, data)
    assert _commit(other, rel, data) == ours
    assert git(history, "ls-files", "-s") == git(other, "ls-files", "-s")
    assert git(history, "status", "--porcelain") == git(other, "status", "--porcelain")
    git(history, "diff", "--cached", "--exit-code")  # the index follows HEAD
    assert not list((history / ".git" / "objects" / "pack").glob("*.pack"))
    assert git(history, "show", f"HEAD:{rel}") == "# Plan\n\nanswer é\n"


def test_an_unchanged_blob_is_nothing_to_commit(history: Path) -> None:
    tree = gitcli.open_work_tree(history)
    result = gitcommit.commit_blob(tree, "a0", b"a0\n", "agent-doc(plan): x")
    assert (result.committed, result.message) == (False, "nothing to commit")
    assert git(history, "rev-list", "--count", "HEAD") == "1\n"


def test_a_linked_worktree_commits_into_the_shared_objects(
    history: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(history, "worktree", "add", "-q", "-b", "side", str(linked))
    sha = _commit(linked, "plan.md", b"from the linked tree\n")
    assert git(history, "rev-parse", "side").strip() == sha
    assert git(history, "rev-parse", "HEAD").strip() != sha  # main branch unmoved
    assert git(linked, "status", "--porcelain", "--", "plan.md") == " M plan.md\n"


def test_a_sha256_repository_commits_through_fast_import(tmp_path: Path) -> None:
    root = tmp_path / "sha256"
    subprocess.run(
        ["git", "init", "-q", "--object-format=sha256", str(root)], check=True
    )
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "Test")
    (root / "plan.md").write_text("one\n")
    git(root, "add", "plan.md")
    git(root, "commit", "-qm", "init")
    sha = _commit(root, "plan.md", b"two\n")
    assert len(sha) == 64
    assert git(root, "show", "HEAD:plan.md") == "two\n"


def test_a_process_without_standard_streams_still_commits(history: Path) -> None:
    """git's pipes must not land on a closed standard stream of ours."""
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from agent_doc.cycle import gitcli, gitcommit\n"
        "os.close(0); os.close(1); os.close(2)\n"
        "tree = gitcli.open_work_tree(Path(sys.argv[1]))\n"
        "result = gitcommit.commit_blob(tree, 'plan.md', b'closed\\n', 'agent-doc(p): x')\n"
        "sys.exit(0 if result.committed else 3)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(history)], check=True)
    assert git(history, "show", "HEAD:plan.md") == "closed\n"
    git(history, "fsck", "--strict")


def test_a_hook_that_writes_much_to_stderr_does_not_block_the_commit(
    history: Path,
) -> None:
    """git's messages are read while its output is: a hook may say a lot."""
    hook = history / ".git" / "hooks" / "reference-transaction"
    hook.write_text("#!/bin/sh\nhead -c 300000 /dev/zero | tr '\\0' x >&2\nexit 0\n")
    hook.chmod(0o755)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agent_doc.cycle import gitcli, gitcommit\n"
        "tree = gitcli.open_work_tree(Path(sys.argv[1]))\n"
        "result = gitcommit.commit_blob(tree, 'plan.md', b'loud\\n', 'agent-doc(p): x')\n"
        "sys.exit(0 if result.committed else 3)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(history)], check=True, timeout=60)
    assert git(history, "show", "HEAD:plan.md") == "loud\n"
