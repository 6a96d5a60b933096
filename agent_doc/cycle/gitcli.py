"""The per-turn selective commit through the ``git`` command line (spec §7.15).

``preflight`` commits the previous cycle on every turn, so this path runs plain
git plumbing instead of importing gitpython (≈35 ms per process): one
``rev-parse`` finds the work tree, the git directory and HEAD; the blob is
written with ``hash-object`` and committed through a temporary index
(``read-tree``, ``update-index``, ``write-tree``, ``commit-tree``,
``update-ref``), so the user's uncommitted edits stay uncommitted and other
staged files are left alone. History, squash and branches stay on gitpython
(:mod:`agent_doc.cycle.vcs`); they do not run every turn.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from agent_doc.errors import VcsError

_ENV = {"LANGUAGE": "C", "LC_ALL": "C"}  # English messages, as gitpython asks


class WorkTree(NamedTuple):
    """A repository's work tree as ``git rev-parse`` reports it."""

    top: Path
    """The work tree's root."""
    git_dir: Path
    """The absolute git directory."""
    head: str | None
    """HEAD's commit id; ``None`` before the first commit."""
    head_tree: str | None
    """HEAD's tree id; ``None`` before the first commit."""
    detached: bool
    """True when HEAD is not a branch."""


class CommitResult(NamedTuple):
    """What a commit did."""

    committed: bool
    """False when there was nothing to commit."""
    sha: str | None
    """The new commit, when one was made."""
    message: str
    """The commit message, or why nothing was committed."""


def _git(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, check=False,
        env={**os.environ, **_ENV, **(env or {})},
    )  # fmt: skip


def _out(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


class _GitFailed(VcsError):
    """A git command exited non-zero; ``stderr`` is what it said."""

    def __init__(self, command: str, stderr: str) -> None:
        super().__init__(f"git {command} failed: {stderr}")
        self.stderr = stderr


def _checked(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = _git(cwd, *args, env=env)
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "surrogateescape").strip()
        raise _GitFailed(args[0], stderr or f"exit {proc.returncode}")
    return _out(proc)


def open_work_tree(path: Path) -> WorkTree:
    """The work tree holding ``path`` (``VcsError`` when there is none)."""
    where = path if path.is_dir() else path.parent
    try:
        proc = _git(where, "rev-parse", "--show-toplevel", "--absolute-git-dir",
                    "HEAD", "HEAD^{tree}", "--symbolic-full-name", "HEAD")  # fmt: skip
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise VcsError(f"not a git repository: {path}") from exc
    lines = _out(proc).splitlines()
    if len(lines) < 2:
        raise VcsError(f"not a git repository: {path}")
    if proc.returncode != 0 or len(lines) < 5:  # no commit yet: HEAD is unborn
        return WorkTree(Path(lines[0]), Path(lines[1]), None, None, detached=False)
    top, git_dir, head, tree, ref = lines[:5]
    return WorkTree(Path(top), Path(git_dir), head, tree, detached=ref == "HEAD")


def relative_path(tree: WorkTree, path: Path) -> str:
    """``path`` relative to the work tree, in git's slash form."""
    top = tree.top.resolve()
    try:
        return path.resolve().relative_to(top).as_posix()
    except ValueError as exc:
        raise VcsError(f"{path} is outside the repository at {top}") from exc


def check_committable(git_dir: Path, *, detached: bool) -> None:
    """Refuse to commit on a detached HEAD or during a merge/rebase."""
    if (git_dir / "MERGE_HEAD").exists():
        raise VcsError("a merge is in progress; finish or abort it before committing")
    if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
        raise VcsError("a rebase is in progress; finish or abort it before committing")
    if detached:
        raise VcsError("HEAD is detached; check out a branch before committing")


def head_text(tree: WorkTree, rel: str) -> str | None:
    """The file's content at HEAD (``None`` when absent there)."""
    if tree.head is None:
        return None
    proc = _git(tree.top, "cat-file", "blob", f"{tree.head}:{rel}")
    if proc.returncode != 0:
        return None
    text = proc.stdout.decode("utf-8", "surrogateescape")
    return text.replace("\r\n", "\n").lstrip("\ufeff")


@contextlib.contextmanager
def _scratch(git_dir: Path) -> Iterator[Path]:
    """A private folder in the git directory for the blob and the temporary index.

    (``tempfile`` would cost a few milliseconds of imports per commit.)
    """
    folder = git_dir / f"agent-doc-commit-{os.getpid()}-{os.urandom(6).hex()}"
    try:
        folder.mkdir(mode=0o700)
    except OSError as exc:
        raise VcsError(f"cannot write in {git_dir}: {exc.strerror or exc}") from exc
    try:
        yield folder
    finally:
        for child in folder.iterdir():
            child.unlink(missing_ok=True)
        folder.rmdir()


def commit_blob(tree: WorkTree, rel: str, data: bytes, message: str) -> CommitResult:
    """Commit ``data`` as ``rel`` on top of HEAD without touching the work tree."""
    check_committable(tree.git_dir, detached=tree.detached)
    top, parent = tree.top, tree.head
    with _scratch(tree.git_dir) as scratch:
        blob_path = scratch / "blob"
        blob_path.write_bytes(data)
        env = {"GIT_INDEX_FILE": str(scratch / "index")}
        try:
            blob = _checked(top, "hash-object", "-w", str(blob_path))
            if parent:
                _checked(top, "read-tree", parent, env=env)
            cache = f"100644,{blob},{rel}"
            _checked(top, "update-index", "--add", "--cacheinfo", cache, env=env)
            new_tree = _checked(top, "write-tree", env=env)
        except _GitFailed as exc:
            raise VcsError(f"git could not stage {rel}: {exc.stderr}") from exc
    if parent and new_tree == tree.head_tree:
        return CommitResult(committed=False, sha=None, message="nothing to commit")
    args = [new_tree, "-m", message] + (["-p", parent] if parent else [])
    sha = _checked(top, "commit-tree", *args)
    _checked(top, "update-ref", "HEAD", sha, *([parent] if parent else []))
    _checked(top, "update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}")
    return CommitResult(committed=True, sha=sha, message=message)
