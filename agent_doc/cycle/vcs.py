"""Git adapter: squash, history and branches (§7.6, §7.24, §9), through gitpython.

The selective commit of every turn (§7.15) runs the git command line directly
(:mod:`agent_doc.cycle.gitcli`), so ``preflight`` does not import gitpython;
these operations run rarely and keep it.
"""

from __future__ import annotations

import time
from pathlib import Path

from agent_doc.cycle import gitcli
from agent_doc.cycle.gitcli import CommitResult
from agent_doc.errors import VcsError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from datetime import datetime

    from git import Repo

AGENT_PREFIX = "agent-doc"


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
    gitcli.check_committable(Path(repo.git_dir), detached=repo.head.is_detached)


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


def commit_message(path: Path, now: datetime | None = None) -> str:
    """Return ``agent-doc(<stem>): <local timestamp>``."""
    form = "%Y-%m-%d %H:%M:%S"
    stamp = now.strftime(form) if now is not None else time.strftime(form)
    return f"{AGENT_PREFIX}({path.stem}): {stamp}"


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
