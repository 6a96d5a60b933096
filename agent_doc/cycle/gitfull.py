"""The per-turn commit as ``git commit --no-verify`` makes it, beside the fast one.

The fast path (:mod:`agent_doc.cycle.gitcommit`) writes git's objects itself.
It makes the commit git would make only when git would do nothing more than
write objects: no signature (``commit.gpgSign``), no hook that
``git commit --no-verify`` runs (spec §7.15 commits with ``--no-verify``, which
skips ``pre-commit`` and ``commit-msg`` but still runs ``prepare-commit-msg``
and ``post-commit``), one file. Everything else comes here: a temporary index
holds HEAD's tree with the entries set, ``prepare-commit-msg`` may edit the
message, ``git commit-tree`` signs as git does (``gpg.format``,
``gpg.program``, ``user.signingKey``), the branch moves by compare-and-swap,
the user's index follows and ``post-commit`` runs. A repository's first
commit comes here too.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.cycle.gitcli import CommitResult
from agent_doc.cycle.gitcli import WorkTree
from agent_doc.cycle.gitcli import index_entry
from agent_doc.cycle.gitobjects import object_id
from agent_doc.cycle.gitproc import GitFailed
from agent_doc.cycle.gitproc import checked
from agent_doc.cycle.gitproc import run_git
from agent_doc.cycle.gitproc import text
from agent_doc.errors import VcsError
from agent_doc.store.atomic import atomic_write_bytes

HOOKS_OF_COMMIT = ("prepare-commit-msg", "post-commit")
"""The hooks ``git commit --no-verify`` runs (``pre-commit``/``commit-msg`` skipped)."""

REGULAR = "100644"
EXECUTABLE = "100755"
SYMLINK = "120000"


class FileEntry(Record):
    """One path to set in the commit's tree."""

    __slots__ = ("mode", "rel", "data")

    def __init__(self, mode: str, rel: str, data: bytes) -> None:
        self.mode = mode
        """``100644``, ``100755`` or ``120000`` (a symlink; ``data`` is its target)."""
        self.rel = rel
        """The path in the work tree, in git's slash form."""
        self.data = data
        """The blob's content."""


def git_bool(config: dict[str, str], key: str, default: bool = False) -> bool:
    """A boolean config value as git reads it (``true``/``yes``/``on``/non-zero)."""
    value = config.get(key)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off", ""):
        return False
    try:
        return int(lowered) != 0
    except ValueError:
        return default


def hooks_to_run(tree: WorkTree) -> list[str]:
    """The hooks of :data:`HOOKS_OF_COMMIT` this repository has (executable)."""
    if tree.hooks is None:
        return []
    return [n for n in HOOKS_OF_COMMIT if os.access(tree.hooks / n, os.X_OK)]


def file_mode(path: Path, head_mode: str | None, config: dict[str, str]) -> str:
    """The mode git would stage for ``path`` (symlinks not followed).

    With ``core.fileMode = false`` a regular file keeps the mode HEAD has.
    """
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return SYMLINK
    trusted = git_bool(config, "core.filemode", default=True)
    if not trusted and head_mode in (REGULAR, EXECUTABLE):
        return head_mode
    return EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR


@contextlib.contextmanager
def scratch(git_dir: Path) -> Iterator[Path]:
    """A private folder in the git directory for the temporary index and message.

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


def clean_message(message: str) -> str:
    """git's ``whitespace`` cleanup of a commit message (``git stripspace``)."""
    lines = [line.rstrip() for line in message.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "".join(line + "\n" for line in out)


def _run_hook(tree: WorkTree, name: str, *args: str, env: dict[str, str]) -> None:
    """Run hook ``name`` as git does; a refusal becomes a :class:`VcsError`."""
    code, out, err = run_git(
        tree.top, "hook", "run", "--ignore-missing", name, "--", *args, env=env
    )
    if code != 0:
        said = text(err) or text(out) or f"exit {code}"
        raise VcsError(f"the {name} hook refused the commit: {said}")


def commit_through_git(
    tree: WorkTree, entries: Sequence[FileEntry], message: str, *, sign: bool
) -> CommitResult:
    """Commit ``entries`` on top of HEAD as ``git commit --no-verify`` would.

    The work tree is not touched; the user's index gets the entries once the
    branch has moved (other staged files stay staged).
    """
    hooks = hooks_to_run(tree)
    with scratch(tree.git_dir) as folder:
        env = {"GIT_INDEX_FILE": str(folder / "index"), "GIT_EDITOR": ":"}
        new_tree = _write_tree(tree, entries, env)
        if new_tree == tree.head_tree:
            return CommitResult(committed=False, sha=None, message="nothing to commit")
        final = clean_message(message)
        if "prepare-commit-msg" in hooks:
            note = folder / "COMMIT_EDITMSG"
            message_bytes = final.encode("utf-8", "surrogateescape")
            atomic_write_bytes(note, message_bytes, durable=False)
            _run_hook(tree, "prepare-commit-msg", str(note), "message", env=env)
            final = clean_message(note.read_text("utf-8", errors="surrogateescape"))
            if not final:
                raise VcsError("the prepare-commit-msg hook left an empty message")
        parent = ["-p", tree.head] if tree.head else []
        code, out, err = run_git(
            tree.top, "commit-tree", new_tree, *parent, *(["-S"] if sign else []),
            data=final.encode("utf-8", "surrogateescape"),
        )  # fmt: skip
        if code != 0:
            raise VcsError(f"git could not commit {entries[0].rel}: {text(err)}")
        sha = text(out)
    _move_branch(tree, sha, final)
    staged = [index_entry(e.rel, _blob_id(e.data, tree), e.mode) for e in entries]
    code, _, err = run_git(
        tree.top, "update-index", "--add", "-z", "--index-info", data=b"".join(staged)
    )
    if code != 0:
        raise GitFailed("update-index", text(err))
    if "post-commit" in hooks:
        with contextlib.suppress(VcsError):  # git ignores its exit status too
            _run_hook(tree, "post-commit", env={})
    return CommitResult(committed=True, sha=sha, message=message)


def _write_tree(
    tree: WorkTree, entries: Sequence[FileEntry], env: dict[str, str]
) -> str:
    """HEAD's tree with ``entries`` set, written through the index in ``env``."""
    top = tree.top
    try:
        if tree.head is not None:
            checked(top, "read-tree", tree.head, env=env)
        listing = [index_entry(e.rel, _blob(top, e.data), e.mode) for e in entries]
        checked(top, "update-index", "--add", "-z", "--index-info",
                data=b"".join(listing), env=env)  # fmt: skip
        return checked(top, "write-tree", env=env)
    except GitFailed as exc:
        raise VcsError(f"git could not stage {entries[0].rel}: {exc.stderr}") from exc


def _blob(top: Path, data: bytes) -> str:
    """Write ``data`` as a blob (no filters: it is what the commit must hold)."""
    if not data:
        return checked(top, "hash-object", "-w", "--no-filters", "/dev/null")
    return checked(top, "hash-object", "-w", "--no-filters", "--stdin", data=data)


def _blob_id(data: bytes, tree: WorkTree) -> str:
    return object_id(b"blob", data, tree.object_format)


def _move_branch(tree: WorkTree, sha: str, message: str) -> None:
    """Point the branch at ``sha``, only from the commit it was built on."""
    subject = message.splitlines()[0] if message else ""
    kind = "commit" if tree.head else "commit (initial)"
    old = tree.head or "0" * len(sha)
    code, _, err = run_git(
        tree.top, "update-ref", "-m", f"{kind}: {subject}", tree.ref or "HEAD", sha, old
    )
    if code != 0:
        raise VcsError(f"git could not move the branch to {sha[:12]}: {text(err)}")
