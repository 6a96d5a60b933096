"""The per-turn selective commit through the ``git`` command line (spec §7.15).

``preflight`` commits the previous cycle on every turn, so this path runs plain
git plumbing instead of importing gitpython (≈35 ms per process), and as few
git processes as it can, side by side: :class:`Git` starts ``git var -l``
(who commits) and ``git cat-file --batch`` (HEAD's trees and the document's
blob) while ``rev-parse`` finds the work tree, the git directory and HEAD.
On a branch with commits the blob, trees and commit are written as loose
objects in-process (:mod:`agent_doc.cycle.gitobjects`), the branch moves with
a compare-and-swap ``update-ref`` (fast-forward only) and ``update-index``
keeps the user's index in step; repositories whose object files need more
(SHA-256, shared permissions, fsync) go through one ``fast-import``, and a
repository's first commit through a temporary index (``read-tree``,
``update-index``, ``write-tree``, ``commit-tree``, ``update-ref``). Either way
the user's uncommitted edits stay uncommitted and other staged files are left
alone; no hook runs. History, squash and branches stay on gitpython
(:mod:`agent_doc.cycle.vcs`); they do not run every turn.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
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
    ref: str | None = None
    """The branch HEAD names (``refs/heads/…``); ``None`` when unborn or detached."""
    objects: Path | None = None
    """The objects folder."""
    object_format: str = "sha1"
    """The repository's hash (``sha1`` or ``sha256``)."""


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


def _text(stderr: bytes) -> str:
    return stderr.decode("utf-8", "surrogateescape").strip()


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


_REV_PARSE = (
    "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "objects",
    "--show-object-format", "HEAD", "HEAD^{tree}", "--symbolic-full-name", "HEAD",
)  # fmt: skip


def open_work_tree(path: Path) -> WorkTree:
    """The work tree holding ``path`` (``VcsError`` when there is none)."""
    where = path if path.is_dir() else path.parent
    try:
        proc = _git(where, *_REV_PARSE)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise VcsError(f"not a git repository: {path}") from exc
    return _work_tree(path, where, proc.returncode, proc.stdout)


def _work_tree(path: Path, where: Path, returncode: int, stdout: bytes) -> WorkTree:
    """The :class:`WorkTree` that ``git rev-parse`` (:data:`_REV_PARSE`) printed."""
    lines = stdout.decode("utf-8", "surrogateescape").strip().splitlines()
    if len(lines) < 4:
        raise VcsError(f"not a git repository: {path}")
    top, git_dir, fmt = Path(lines[0]), Path(lines[1]), lines[3]
    objects = where / lines[2]  # (relative to where rev-parse ran)
    if returncode != 0 or len(lines) < 7:  # no commit yet: HEAD is unborn
        return WorkTree(top, git_dir, None, None, False, None, objects, fmt)
    head, tree, ref = lines[4:7]
    detached = ref == "HEAD"
    return WorkTree(
        top, git_dir, head, tree, detached, None if detached else ref, objects, fmt
    )


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


class Git:
    """git's processes for one commit of ``path``, each started before it is needed.

    ``rev-parse`` (:meth:`work_tree`) and ``git cat-file --batch`` (HEAD's trees
    and the document's blob) start when this is made; ``git var -l`` (who
    commits) and ``git update-ref --stdin`` once the work tree is known;
    ``git update-index --index-info`` once there is something to commit. Each
    starts up beside work in this process and gets its input when it is due.
    """

    def __init__(self, path: Path, message: str | None = None) -> None:
        """Start the first processes in ``path``'s folder (``path`` itself if one).

        ``message``, the commit message to come, lets ``update-ref`` start early.
        """
        from agent_doc.cycle.gitobjects import ObjectReader

        self._doc = path
        self._message = message
        self._where = path if path.is_dir() else path.parent
        self._started: list[subprocess.Popen[bytes]] = []
        self._tree: WorkTree | None = None
        self._var: subprocess.Popen[bytes] | None = None
        self._var_out: tuple[bytes, bytes] | None = None
        self._move: subprocess.Popen[bytes] | None = None
        self._paths: dict[tuple[str, str], Any] = {}
        try:
            self._rev_parse = self._start(*_REV_PARSE)
            self._reader = ObjectReader(self._where)
            self._started.append(self._reader.process)
        except (FileNotFoundError, NotADirectoryError) as exc:
            self.close()
            raise VcsError(f"not a git repository: {path}") from exc

    def _start(
        self, *args: str, cwd: Path | None = None, stdin: bool = False
    ) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            ["git", *args], cwd=cwd or self._where,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **_ENV},
        )  # fmt: skip
        self._started.append(proc)
        return proc

    def __enter__(self) -> Git:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the processes (waiting for those still running)."""
        for proc in self._started:
            try:
                proc.communicate(timeout=10)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()

    def work_tree(self) -> WorkTree:
        """The work tree holding the path (``VcsError`` when there is none)."""
        if self._tree is None:
            out, _ = self._rev_parse.communicate()
            code = self._rev_parse.returncode
            self._tree = _work_tree(self._doc, self._where, code, out)
            self._prepare(self._tree)
        return self._tree

    def _prepare(self, tree: WorkTree) -> None:
        """Start ``git var`` and, on a branch with commits, ``update-ref``."""
        if self._var is None:
            self._var = self._start("var", "-l")
        if self._message is not None and tree.head is not None and tree.ref:
            self._mover(tree, self._message)

    def _mover(self, tree: WorkTree, message: str) -> subprocess.Popen[bytes]:
        """``git update-ref --stdin`` for the commit ``message`` (started once)."""
        if self._move is None or self._message != message:
            self._message = message
            self._move = self._start("update-ref", "-m", f"commit: {message}",
                                     "--stdin", cwd=tree.top, stdin=True)  # fmt: skip
        return self._move

    def _identities(self) -> tuple[str, str, dict[str, str]]:
        """``(author, committer, config)`` as git would record them now."""
        if self._var is None:
            self._var = self._start("var", "-l")
        if self._var_out is None:
            self._var_out = self._var.communicate()
        out, err = self._var_out
        found: dict[str, str] = {}
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            key, _, value = line.partition("=")
            found[key] = value
        if self._var.returncode != 0 or not (
            "GIT_AUTHOR_IDENT" in found and "GIT_COMMITTER_IDENT" in found
        ):
            raise VcsError(
                f"git cannot tell who commits: {_text(err) or 'no identity'}"
            )
        return found["GIT_AUTHOR_IDENT"], found["GIT_COMMITTER_IDENT"], found

    def _path(self, tree: WorkTree, rel: str) -> Any:
        """HEAD's trees along ``rel`` (a :class:`gitobjects.PathInTree`)."""
        from agent_doc.cycle.gitobjects import PathInTree

        assert tree.head_tree is not None
        key = (tree.head_tree, rel)
        if key not in self._paths:
            parts = rel.encode("utf-8", "surrogateescape").split(b"/")
            self._paths[key] = PathInTree(self._reader, tree.head_tree, parts)
        return self._paths[key]

    def head_text(self, tree: WorkTree, rel: str) -> str | None:
        """The file's content at HEAD (``None`` when absent there)."""
        if tree.head is None:
            return None
        target = self._path(tree, rel).target
        found = self._reader.read(target) if target is not None else None
        if found is None or found[0] != "blob":
            return None
        text = found[1].decode("utf-8", "surrogateescape")
        return text.replace("\r\n", "\n").lstrip("\ufeff")

    def commit(
        self, tree: WorkTree, rel: str, data: bytes, message: str
    ) -> CommitResult:
        """Commit ``data`` as ``rel`` on top of HEAD without touching the work tree."""
        from agent_doc.cycle import gitobjects

        check_committable(tree.git_dir, detached=tree.detached)
        if tree.head is None or tree.ref is None:  # unborn: no branch to build on
            return _commit_through_index(tree, rel, data, message)
        author, committer, config = self._identities()
        if tree.objects is None or not gitobjects.can_write_loose(
            tree.object_format, config
        ):
            return _fast_import(tree, rel, data, message, (author, committer))
        blob = gitobjects.object_id(b"blob", data)
        found = self._path(tree, rel)
        if found.target == blob:
            return CommitResult(committed=False, sha=None, message="nothing to commit")
        # Both wait on their input while the objects are written.
        move = self._mover(tree, message)
        stage = self._start("update-index", "--add", "-z", "--index-info",
                            cwd=tree.top, stdin=True)  # fmt: skip
        writer = gitobjects.LooseWriter(tree.objects, gitobjects.loose_level(config))
        writer.write(b"blob", data)
        body = (
            f"tree {found.replaced(blob, writer.write)}\nparent {tree.head}\n"
            f"author {author}\ncommitter {committer}\n\n{message}"
        )
        sha = writer.write(b"commit", body.encode("utf-8", "surrogateescape"))
        # Only from the commit this one builds on (fast-forward only); the
        # user's index follows only once the branch has moved.
        _, err = move.communicate(f"update {tree.ref} {sha} {tree.head}\n".encode())
        if move.returncode != 0:
            stage.communicate()  # no input: the index stays as it was
            raise VcsError(f"git could not commit {rel}: {_text(err)}")
        _, err = stage.communicate(_index_entry(rel, blob))
        if stage.returncode != 0:
            raise _GitFailed("update-index", _text(err))
        return CommitResult(committed=True, sha=sha, message=message)


def _stage(tree: WorkTree, rel: str, blob: str) -> None:
    """Point the user's index entry for ``rel`` at ``blob`` (as :meth:`Git.commit`)."""
    proc = subprocess.run(
        ["git", "update-index", "--add", "-z", "--index-info"], cwd=tree.top,
        input=_index_entry(rel, blob), capture_output=True, check=False,
        env={**os.environ, **_ENV},
    )  # fmt: skip
    if proc.returncode != 0:
        raise _GitFailed("update-index", _text(proc.stderr))


def _index_entry(rel: str, blob: str) -> bytes:
    """``rel`` at ``blob`` for ``update-index -z --index-info``.

    (Unlike ``--cacheinfo``, this replaces a file or folder in the way of
    ``rel``, as the commit's tree did.)
    """
    return f"100644 {blob}\t{rel}\0".encode("utf-8", "surrogateescape")


def commit_blob(tree: WorkTree, rel: str, data: bytes, message: str) -> CommitResult:
    """Commit ``data`` as ``rel`` on top of ``tree.head`` (not the work tree)."""
    with Git(tree.top) as git:
        return git.commit(tree, rel, data, message)


def _fast_import(
    tree: WorkTree, rel: str, data: bytes, message: str, idents: tuple[str, str]
) -> CommitResult:
    """The commit through one ``fast-import``: is the blob new? then the blob,
    tree and commit and the branch update, refused unless it fast-forwards;
    then ``update-index`` (the user's index follows)."""
    blob = _blob_id(data, tree.object_format)
    author, committer = idents
    importer = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"],
        cwd=tree.top, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, **_ENV},
    )  # fmt: skip
    stdin, stdout = importer.stdin, importer.stdout
    assert stdin is not None
    assert stdout is not None
    path = _quote(rel)
    stdin.write(f"feature done\nfeature get-mark\nls {tree.head} {path}\n".encode())
    stdin.flush()
    listed = stdout.readline().decode("utf-8", "surrogateescape").split()
    if len(listed) >= 3 and listed[2] == blob:
        stdin.write(b"done\n")
        _finish(importer, rel)
        return CommitResult(committed=False, sha=None, message="nothing to commit")
    text = message.encode()
    stdin.write(
        b"".join([
            f"commit {tree.ref}\nmark :1\n".encode(),
            f"author {author}\ncommitter {committer}\n".encode(),
            f"data {len(text)}\n".encode(), text, b"\n",
            f"from {tree.head}\nM 100644 inline {path}\n".encode(),
            f"data {len(data)}\n".encode(), data, b"\n\n",
            b"get-mark :1\n",
        ])
    )  # fmt: skip
    stdin.flush()
    sha = stdout.readline().decode().strip()
    stdin.write(b"done\n")
    _finish(importer, rel)
    _stage(tree, rel, blob)
    return CommitResult(committed=True, sha=sha, message=message)


def _commit_through_index(
    tree: WorkTree, rel: str, data: bytes, message: str
) -> CommitResult:
    """The first commit of a repository, through a temporary index."""
    top = tree.top
    with _scratch(tree.git_dir) as scratch:
        blob_path = scratch / "blob"
        blob_path.write_bytes(data)
        env = {"GIT_INDEX_FILE": str(scratch / "index")}
        try:
            blob = _checked(top, "hash-object", "-w", str(blob_path))
            cache = f"100644,{blob},{rel}"
            _checked(top, "update-index", "--add", "--cacheinfo", cache, env=env)
            new_tree = _checked(top, "write-tree", env=env)
        except _GitFailed as exc:
            raise VcsError(f"git could not stage {rel}: {exc.stderr}") from exc
    sha = _checked(top, "commit-tree", new_tree, "-m", message)
    _checked(top, "update-ref", "HEAD", sha)
    _stage(tree, rel, blob)
    return CommitResult(committed=True, sha=sha, message=message)


def _blob_id(data: bytes, object_format: str) -> str:
    """The id git gives ``data`` as a blob (a hash of ``blob <size>\\0<data>``)."""
    from agent_doc.cycle.gitobjects import object_id

    return object_id(b"blob", data, object_format)


def _quote(rel: str) -> str:
    """``rel`` as a fast-import path (C-style quoted)."""
    escaped = rel.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _finish(importer: subprocess.Popen[bytes], rel: str) -> None:
    """Wait for ``fast-import``; a refusal becomes a :class:`VcsError`."""
    _, err = importer.communicate()  # closes stdin: the stream ends
    if importer.returncode != 0:
        stderr = err.decode("utf-8", "surrogateescape").strip().splitlines()
        reason = stderr[-1] if stderr else f"exit {importer.returncode}"
        raise VcsError(f"git could not commit {rel}: {reason}")
