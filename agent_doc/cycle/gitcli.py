"""The work tree and the selective commit's fallbacks, through the ``git`` command line.

The per-turn commit (spec §7.15, :mod:`agent_doc.cycle.gitcommit`) runs plain
git plumbing instead of importing gitpython (≈35 ms per process). Here: the
work tree as ``rev-parse`` reports it, the checks before a commit, the user's
index entry, and the commit of a repository whose object files need more
(SHA-256, shared permissions, fsync), through one ``fast-import``: the user's
uncommitted edits stay uncommitted and other staged files are left alone. A
commit that git would sign or run hooks for, a first commit, and a symlinked
document go through :mod:`agent_doc.cycle.gitfull`. History,
squash and branches stay on gitpython (:mod:`agent_doc.cycle.vcs`); they do
not run every turn.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.cycle.gitobjects import object_id
from agent_doc.cycle.gitproc import GitFailed
from agent_doc.cycle.gitproc import GitProcess
from agent_doc.cycle.gitproc import run_git
from agent_doc.cycle.gitproc import text
from agent_doc.errors import VcsError


class WorkTree(Record):
    """A repository's work tree as ``git rev-parse`` reports it."""

    __slots__ = (
        "top",
        "git_dir",
        "head",
        "head_tree",
        "detached",
        "ref",
        "objects",
        "object_format",
        "hooks",
    )

    def __init__(
        self,
        top: Path,
        git_dir: Path,
        head: str | None,
        head_tree: str | None,
        detached: bool,
        ref: str | None = None,
        objects: Path | None = None,
        object_format: str = "sha1",
        hooks: Path | None = None,
    ) -> None:
        self.top = top
        """The work tree's root."""
        self.git_dir = git_dir
        """The absolute git directory."""
        self.head = head
        """HEAD's commit id; ``None`` before the first commit."""
        self.head_tree = head_tree
        """HEAD's tree id; ``None`` before the first commit."""
        self.detached = detached
        """True when HEAD is not a branch."""
        self.ref = ref
        """The branch HEAD names (``refs/heads/…``); ``None`` when unborn or
        detached."""
        self.objects = objects
        """The objects folder."""
        self.object_format = object_format
        """The repository's hash (``sha1`` or ``sha256``)."""
        self.hooks = hooks
        """The hooks folder (``core.hooksPath`` or the git directory's ``hooks``)."""


class CommitResult(Record):
    """What a commit did."""

    __slots__ = ("committed", "sha", "message")

    def __init__(self, committed: bool, sha: str | None, message: str) -> None:
        self.committed = committed
        """False when there was nothing to commit."""
        self.sha = sha
        """The new commit, when one was made."""
        self.message = message
        """The commit message, or why nothing was committed."""


REV_PARSE = (
    "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "objects",
    "--git-path", "hooks", "--show-object-format", "HEAD", "HEAD^{tree}",
    "--symbolic-full-name", "HEAD",
)  # fmt: skip


def open_work_tree(path: Path) -> WorkTree:
    """The work tree holding ``path`` (``VcsError`` when there is none)."""
    where = path if path.is_dir() else path.parent
    try:
        code, out, _ = run_git(where, *REV_PARSE)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise VcsError(f"not a git repository: {path}") from exc
    return work_tree_from(path, where, code, out)


def work_tree_from(path: Path, where: Path, returncode: int, stdout: bytes) -> WorkTree:
    """The :class:`WorkTree` that ``git rev-parse`` (:data:`REV_PARSE`) printed
    when run in ``where`` for ``path``."""
    lines = stdout.decode("utf-8", "surrogateescape").strip().splitlines()
    if len(lines) < 5:
        raise VcsError(f"not a git repository: {path}")
    top, git_dir, fmt = Path(lines[0]), Path(lines[1]), lines[4]
    objects = where / lines[2]  # (both relative to where rev-parse ran)
    hooks = where / lines[3]
    if returncode != 0 or len(lines) < 8:  # no commit yet: HEAD is unborn
        return WorkTree(top, git_dir, None, None, False, None, objects, fmt, hooks)
    head, tree, ref = lines[5:8]
    detached = ref == "HEAD"
    branch = None if detached else ref
    return WorkTree(top, git_dir, head, tree, detached, branch, objects, fmt, hooks)


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


def stage(tree: WorkTree, rel: str, blob: str, mode: str = "100644") -> None:
    """Point the user's index entry for ``rel`` at ``blob`` (nothing else changes)."""
    code, _, err = run_git(
        tree.top, "update-index", "--add", "-z", "--index-info",
        data=index_entry(rel, blob, mode),
    )  # fmt: skip
    if code != 0:
        raise GitFailed("update-index", text(err))


def index_entry(rel: str, blob: str, mode: str = "100644") -> bytes:
    """``rel`` at ``blob`` with ``mode`` for ``update-index -z --index-info``.

    (Unlike ``--cacheinfo``, this replaces a file or folder in the way of
    ``rel``, as the commit's tree did.)
    """
    return f"{mode} {blob}\t{rel}\0".encode("utf-8", "surrogateescape")


def commit_by_fast_import(
    tree: WorkTree,
    rel: str,
    data: bytes,
    message: str,
    idents: tuple[str, str],
    mode: str = "100644",
) -> CommitResult:
    """The commit through one ``fast-import``: is the blob new? then the blob,
    tree and commit and the branch update, refused unless it fast-forwards;
    then ``update-index`` (the user's index follows)."""
    blob = _blob_id(data, tree.object_format)
    author, committer = idents
    importer = GitProcess(("fast-import", "--quiet", "--done"), tree.top, stdin=True)
    stdin, stdout = importer.stdin, importer.stdout
    assert stdin is not None
    assert stdout is not None
    path = _quote(rel)
    stdin.write(f"feature done\nfeature get-mark\nls {tree.head} {path}\n".encode())
    stdin.flush()
    listed = stdout.readline().decode("utf-8", "surrogateescape").split()
    if len(listed) >= 3 and listed[2] == blob and listed[0] == mode:
        stdin.write(b"done\n")
        _finish(importer, rel)
        return CommitResult(committed=False, sha=None, message="nothing to commit")
    text = message.encode()
    stdin.write(
        b"".join([
            f"commit {tree.ref}\nmark :1\n".encode(),
            f"author {author}\ncommitter {committer}\n".encode(),
            f"data {len(text)}\n".encode(), text, b"\n",
            f"from {tree.head}\nM {mode} inline {path}\n".encode(),
            f"data {len(data)}\n".encode(), data, b"\n\n",
            b"get-mark :1\n",
        ])
    )  # fmt: skip
    stdin.flush()
    sha = stdout.readline().decode().strip()
    stdin.write(b"done\n")
    _finish(importer, rel)
    stage(tree, rel, blob, mode)
    return CommitResult(committed=True, sha=sha, message=message)


def _blob_id(data: bytes, object_format: str) -> str:
    """The id git gives ``data`` as a blob (a hash of ``blob <size>\\0<data>``)."""
    return object_id(b"blob", data, object_format)


def _quote(rel: str) -> str:
    """``rel`` as a fast-import path (C-style quoted)."""
    escaped = rel.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _finish(importer: GitProcess, rel: str) -> None:
    """Wait for ``fast-import``; a refusal becomes a :class:`VcsError`."""
    _, err = importer.communicate()  # closes stdin: the stream ends
    if importer.returncode != 0:
        stderr = err.decode("utf-8", "surrogateescape").strip().splitlines()
        reason = stderr[-1] if stderr else f"exit {importer.returncode}"
        raise VcsError(f"git could not commit {rel}: {reason}")
