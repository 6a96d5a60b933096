"""The per-turn commit of one document, its git processes side by side (spec §7.15).

``preflight`` commits the previous cycle on every turn. :class:`Git` starts
``rev-parse`` and ``cat-file --batch`` at once, ``git var -l`` and
``update-ref --stdin`` when the work tree is known and ``update-index
--index-info`` when there is something to commit, so each starts up while this
process works; the blob, trees and commit are written as loose objects here
(:mod:`agent_doc.cycle.gitobjects`); the branch moves by compare-and-swap
(fast-forward only) and then the user's index follows. The file keeps its
mode. The other paths are :mod:`agent_doc.cycle.gitcli` (SHA-256 or shared
repositories) and :mod:`agent_doc.cycle.gitfull` (a signature, the hooks
``git commit --no-verify`` runs, a first commit, a symlinked document).
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc.cycle import gitobjects
from agent_doc.cycle.gitcli import REV_PARSE
from agent_doc.cycle.gitcli import CommitResult
from agent_doc.cycle.gitcli import WorkTree
from agent_doc.cycle.gitcli import check_committable
from agent_doc.cycle.gitcli import commit_by_fast_import
from agent_doc.cycle.gitcli import index_entry
from agent_doc.cycle.gitcli import work_tree_from
from agent_doc.cycle.gitfull import REGULAR
from agent_doc.cycle.gitfull import FileEntry
from agent_doc.cycle.gitfull import commit_through_git
from agent_doc.cycle.gitfull import file_mode
from agent_doc.cycle.gitfull import git_bool
from agent_doc.cycle.gitfull import hooks_to_run
from agent_doc.cycle.gitobjects import ObjectReader
from agent_doc.cycle.gitobjects import PathInTree
from agent_doc.cycle.gitproc import GitFailed
from agent_doc.cycle.gitproc import GitProcess
from agent_doc.cycle.gitproc import run_git
from agent_doc.cycle.gitproc import text
from agent_doc.errors import VcsError
from agent_doc.store.atomic import atomic_write_bytes

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


declare_points(
    {
        "commit.objects_written": "blob, trees, commit written; branch not moved",
        "commit.ref_moved": "the branch holds the commit; the index not updated",
    }
)


INDEX_NOTE = "AGENT_DOC_INDEX"
"""A file in the git folder holding the index entry of a commit whose branch
moved and whose index is not yet updated (:meth:`Git.settle_index`)."""


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
        self._doc = path
        self._message = message
        self._where = path if path.is_dir() else path.parent
        self._started: list[GitProcess] = []
        self._tree: WorkTree | None = None
        self._var: GitProcess | None = None
        self._var_out: tuple[bytes, bytes] | None = None
        self._move: GitProcess | None = None
        self._paths: dict[tuple[str, str], Any] = {}
        try:
            self._rev_parse = self._start(*REV_PARSE)
            self._reader = ObjectReader(self._where)
            self._started.append(self._reader.process)
        except (FileNotFoundError, NotADirectoryError) as exc:
            self.close()
            raise VcsError(f"not a git repository: {path}") from exc

    @property
    def message(self) -> str:
        """The commit message given when this was made."""
        if self._message is None:
            raise VcsError("no commit message was given")
        return self._message

    def _start(
        self, *args: str, cwd: Path | None = None, stdin: bool = False
    ) -> GitProcess:
        proc = GitProcess(args, cwd or self._where, stdin=stdin)
        self._started.append(proc)
        return proc

    def __enter__(self) -> Git:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the processes (their input ends; each is waited for)."""
        for proc in self._started:
            proc.communicate()

    def work_tree(self) -> WorkTree:
        """The work tree holding the path (``VcsError`` when there is none)."""
        if self._tree is None:
            out, _ = self._rev_parse.communicate()
            code = self._rev_parse.returncode
            assert code is not None
            self._tree = work_tree_from(self._doc, self._where, code, out)
            self._prepare(self._tree)
        return self._tree

    def _prepare(self, tree: WorkTree) -> None:
        """Start ``git var`` and, on a branch with commits, ``update-ref``."""
        if self._var is None:
            self._var = self._start("var", "-l")
        if self._message is not None and tree.head is not None and tree.ref:
            self._mover(tree, self._message)

    def _mover(self, tree: WorkTree, message: str) -> GitProcess:
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
            key, equals, value = line.partition("=")
            found[key] = value if equals else "true"  # a bare key is true
        if self._var.returncode != 0 or not (
            "GIT_AUTHOR_IDENT" in found and "GIT_COMMITTER_IDENT" in found
        ):
            raise VcsError(f"git cannot tell who commits: {text(err) or 'no identity'}")
        return found["GIT_AUTHOR_IDENT"], found["GIT_COMMITTER_IDENT"], found

    def _path(self, tree: WorkTree, rel: str) -> Any:
        """HEAD's trees along ``rel`` (a :class:`gitobjects.PathInTree`)."""
        assert tree.head_tree is not None
        key = (tree.head_tree, rel)
        if key not in self._paths:
            parts = rel.encode("utf-8", "surrogateescape").split(b"/")
            size = len(tree.head_tree) // 2  # 20 bytes for SHA-1, 32 for SHA-256
            self._paths[key] = PathInTree(self._reader, tree.head_tree, parts, size)
        return self._paths[key]

    def head_entry(self, tree: WorkTree, rel: str) -> tuple[str, str] | None:
        """``(mode, id)`` of the entry at ``rel`` in HEAD (``None`` when absent)."""
        if tree.head is None:
            return None
        found = self._path(tree, rel)
        if found.target is None or found.target_mode is None:
            return None
        return found.target_mode, found.target

    def head_text(self, tree: WorkTree, rel: str) -> str | None:
        """The file's content at HEAD (``None`` when absent there)."""
        data = self.head_data(tree, rel)
        return None if data is None else head_text_of(data)

    def head_data(self, tree: WorkTree, rel: str) -> bytes | None:
        """The file's bytes at HEAD (``None`` when absent there)."""
        if tree.head is None:
            return None
        target = self._path(tree, rel).target
        found = self._reader.read(target) if target is not None else None
        if found is None or found[0] != "blob":
            return None
        data: bytes = found[1]
        return data

    def commit(
        self,
        tree: WorkTree,
        rel: str,
        data: bytes,
        message: str,
        *,
        path: Path | None = None,
        also: Sequence[FileEntry] = (),
    ) -> CommitResult:
        """Commit ``data`` as ``rel`` on top of HEAD without touching the work tree.

        ``path``: the file whose mode the commit keeps (else a regular file);
        ``also``: more entries of the same commit (the symlink to a document).
        """
        check_committable(tree.git_dir, detached=tree.detached)
        author, committer, config = self._identities()
        found = self._path(tree, rel) if tree.head is not None else None
        head_mode = found.target_mode if found is not None else None
        mode = file_mode(path, head_mode, config) if path is not None else REGULAR
        sign = git_bool(config, "commit.gpgsign")
        if found is None or tree.ref is None or sign or also or hooks_to_run(tree):
            entries = [FileEntry(mode, rel, data), *also]
            return commit_through_git(tree, entries, message, sign=sign)
        if tree.objects is None or not gitobjects.can_write_loose(
            tree.object_format, config
        ):
            idents = (author, committer)
            return commit_by_fast_import(tree, rel, data, message, idents, mode)
        blob = gitobjects.object_id(b"blob", data)
        if found.target == blob and head_mode == mode:
            return CommitResult(committed=False, sha=None, message="nothing to commit")
        # Both wait on their input while the objects are written.
        move = self._mover(tree, message)
        stage = self._start("update-index", "--add", "-z", "--index-info",
                            cwd=tree.top, stdin=True)  # fmt: skip
        writer = gitobjects.LooseWriter(tree.objects, gitobjects.loose_level(config))
        writer.write(b"blob", data)
        root = found.replaced(blob, writer.write, mode.encode("ascii"))
        body = (
            f"tree {root}\nparent {tree.head}\n"
            f"author {author}\ncommitter {committer}\n\n{message}"
        )
        sha = writer.write(b"commit", body.encode("utf-8", "surrogateescape"))
        entry = index_entry(rel, blob, mode)
        note = tree.git_dir / INDEX_NOTE  # the index entry, until it is staged
        atomic_write_bytes(note, entry, durable=False, error=VcsError)
        crash_point("commit.objects_written")
        # Only from the commit this one builds on (fast-forward only); the
        # user's index follows only once the branch has moved.
        _, err = move.communicate(f"update {tree.ref} {sha} {tree.head}\n".encode())
        if move.returncode != 0:
            stage.communicate()  # no input: the index stays as it was
            raise VcsError(f"git could not commit {rel}: {text(err)}")
        crash_point("commit.ref_moved")
        _, err = stage.communicate(entry)
        if stage.returncode != 0:
            raise GitFailed("update-index", text(err))
        note.unlink(missing_ok=True)
        return CommitResult(committed=True, sha=sha, message=message)

    def settle_index(self, tree: WorkTree) -> None:
        """Bring the index along after a commit whose process died between
        moving the branch and updating the index (its note, :data:`INDEX_NOTE`,
        is left): the entry is staged when HEAD still holds that blob, so
        the index never stages a revert of the answer."""
        note = tree.git_dir / INDEX_NOTE
        try:
            entry = note.read_bytes()
        except OSError:  # none (the usual case), or unreadable
            return
        head, _, rel = entry.rstrip(b"\0").partition(b"\t")
        mode, _, blob = head.decode("ascii", "replace").partition(" ")
        path = rel.decode("utf-8", "surrogateescape")
        if self.head_entry(tree, path) == (mode, blob):
            status, _, err = run_git(
                tree.top, "update-index", "--add", "-z", "--index-info", data=entry
            )
            if status != 0:
                raise GitFailed("update-index", text(err))
        note.unlink(missing_ok=True)


def commit_blob(tree: WorkTree, rel: str, data: bytes, message: str) -> CommitResult:
    """Commit ``data`` as ``rel`` on top of ``tree.head`` (not the work tree)."""
    with Git(tree.top) as git:
        return git.commit(tree, rel, data, message)


def head_text_of(data: bytes) -> str:
    """The text :meth:`Git.head_text` makes of a blob's bytes (CRLF made
    ``\\n``, leading BOMs dropped, bad bytes kept as lone surrogates)."""
    text = data.decode("utf-8", "surrogateescape")
    return text.replace("\r\n", "\n").lstrip("\ufeff")
