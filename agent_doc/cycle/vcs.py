"""Git adapter: selective commit, squash, history and branches (§7.6, §7.15, §7.24, §9).

The commit stages the **snapshot** (the agent's last state, with ``(HEAD)`` on
new headings), never the working tree: the blob is written with ``hash-object``
and committed through a temporary index, so the user's unsaved-to-git edits
stay uncommitted and other staged files are left alone. gitpython drives git.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent_doc.errors import VcsError

if TYPE_CHECKING:
    from git import Repo

AGENT_PREFIX = "agent-doc"


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What a commit did."""

    committed: bool
    """False when there was nothing to commit."""
    sha: str | None
    """The new commit, when one was made."""
    message: str
    """The commit message, or why nothing was committed."""


def open_repo(path: Path) -> Repo:
    """Return the git repository holding ``path`` (``VcsError`` when none)."""
    import git

    try:
        return git.Repo(
            path if path.is_dir() else path.parent, search_parent_directories=True
        )
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise VcsError(f"not a git repository: {path}") from exc


def check_committable(repo: Repo) -> None:
    """Refuse to commit on a detached HEAD or during a merge/rebase."""
    git_dir = Path(repo.git_dir)
    if (git_dir / "MERGE_HEAD").exists():
        raise VcsError("a merge is in progress; finish or abort it before committing")
    if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
        raise VcsError("a rebase is in progress; finish or abort it before committing")
    if repo.head.is_detached:
        raise VcsError("HEAD is detached; check out a branch before committing")


def relative_path(repo: Repo, path: Path) -> str:
    """Return ``path`` relative to the work tree, in git's slash form."""
    top = Path(repo.working_tree_dir or ".").resolve()
    try:
        return path.resolve().relative_to(top).as_posix()
    except ValueError as exc:
        raise VcsError(f"{path} is outside the repository at {top}") from exc


def has_head(repo: Repo) -> bool:
    """True when the repository has at least one commit."""
    try:
        repo.head.commit  # noqa: B018 - resolving HEAD is the check
    except ValueError:
        return False
    return True


def head_text(repo: Repo, rel: str) -> str | None:
    """Return the file's content at HEAD (``None`` when absent there)."""
    import git

    if not has_head(repo):
        return None
    try:
        data: str = repo.git.show(f"HEAD:{rel}", strip_newline_in_stdout=False)
    except git.GitCommandError:
        return None
    return data.replace("\r\n", "\n").lstrip("\ufeff")


def commit_message(path: Path, now: datetime | None = None) -> str:
    """Return ``agent-doc(<stem>): <local timestamp>``."""
    stamp = (now or datetime.now()).strftime("%Y-%m-%d %H:%M:%S")
    return f"{AGENT_PREFIX}({path.stem}): {stamp}"


def commit_blob(repo: Repo, rel: str, data: bytes, message: str) -> CommitResult:
    """Commit ``data`` as ``rel`` on top of HEAD without touching the work tree."""
    import git

    check_committable(repo)
    parent = repo.head.commit.hexsha if has_head(repo) else None
    with tempfile.TemporaryDirectory(prefix="agent-doc-commit-") as scratch:
        blob_path = Path(scratch) / "blob"
        blob_path.write_bytes(data)
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        try:
            blob = repo.git.hash_object("-w", str(blob_path))
            if parent:
                repo.git.read_tree(parent, env=env)
            cache = f"100644,{blob},{rel}"
            repo.git.update_index("--add", "--cacheinfo", cache, env=env)
            tree = repo.git.write_tree(env=env)
        except git.GitCommandError as exc:
            raise VcsError(f"git could not stage {rel}: {exc.stderr.strip()}") from exc
    if parent and tree == repo.head.commit.tree.hexsha:
        return CommitResult(committed=False, sha=None, message="nothing to commit")
    args = [tree, "-m", message] + (["-p", parent] if parent else [])
    sha = repo.git.commit_tree(*args)
    repo.git.update_ref("HEAD", sha, *([parent] if parent else []))
    repo.git.update_index("--add", "--cacheinfo", f"100644,{blob},{rel}")
    return CommitResult(committed=True, sha=sha, message=message)


def squash_agent_commits(repo: Repo, path: Path) -> CommitResult:
    """Squash the run of ``agent-doc(<stem>)`` commits at HEAD into one (§7.6)."""
    check_committable(repo)
    if not has_head(repo):
        return CommitResult(False, None, "no commits to squash")
    prefixes = (f"{AGENT_PREFIX}({path.stem})", f"{AGENT_PREFIX}:")
    run = []
    for commit in repo.iter_commits("HEAD"):
        if not str(commit.message).startswith(prefixes):
            break
        run.append(commit)
    if len(run) < 2:
        return CommitResult(False, None, "fewer than two agent-doc commits at HEAD")
    base = run[-1].parents[0].hexsha if run[-1].parents else None
    message = f"{AGENT_PREFIX}({path.stem}): squashed {len(run)} commits"
    args = [repo.head.commit.tree.hexsha, "-m", message] + (
        ["-p", base] if base else []
    )
    sha = repo.git.commit_tree(*args)
    repo.git.update_ref("HEAD", sha, repo.head.commit.hexsha)
    return CommitResult(True, sha, message)


def create_branch(repo: Repo, path: Path) -> str:
    """Switch to ``agent-doc/<stem>``, creating it from HEAD when needed."""
    import git

    name = f"{AGENT_PREFIX}/{path.stem}"
    try:
        if name in [h.name for h in repo.heads]:
            repo.git.checkout(name)
        else:
            repo.git.checkout("-b", name)
    except git.GitCommandError as exc:
        raise VcsError(f"cannot switch to branch {name}: {exc.stderr.strip()}") from exc
    return name
