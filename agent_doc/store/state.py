"""The ``.agent-doc/`` state of a project: snapshots, baselines, pending, CRDT state.

Every per-document file is named after :func:`doc_hash` of the document's
canonical path, so a document reached through a symlink shares its target's
state. All writes are atomic (see :mod:`agent_doc.store.atomic`), and :func:`doc_lock`
serialises agent-doc processes working on the same document.

The document readers/writers and the lock/atomic helpers live in small sibling
modules and are re-exported here, which is the import path callers should use.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from agent_doc._runtime.digest import sha256_hex
from agent_doc.document.surrogates import encode_utf8
from agent_doc.errors import StateError
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.atomic import atomic_write_text
from agent_doc.store.docfile import DocumentFile
from agent_doc.store.docfile import read_document
from agent_doc.store.docfile import write_document
from agent_doc.store.locks import DEFAULT_TIMEOUT
from agent_doc.store.locks import file_lock
from agent_doc.store.regular_file import require_document
from agent_doc.store.snapshot_index import read_indexed
from agent_doc.store.snapshot_index import read_keyed
from agent_doc.store.snapshot_index import remove_index
from agent_doc.store.snapshot_index import write_indexed

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent_doc.document.snap_index import SnapIndex
    from agent_doc.store.snapshot_index import FileKey

__all__ = [
    "STATE_DIR",
    "DocumentFile",
    "StateStore",
    "atomic_write_bytes",
    "atomic_write_text",
    "doc_hash",
    "doc_lock",
    "file_lock",
    "find_project_root",
    "project_root_for",
    "read_document",
    "require_document",
    "write_document",
]

STATE_DIR = ".agent-doc"
"""Name of the per-project state folder."""


def _start_dir(path: Path) -> Path:
    """Where an upward search starts: ``path`` if a folder, else its parent."""
    resolved = Path(path).resolve()
    return resolved if resolved.is_dir() else resolved.parent


CEILING_ENV = "AGENT_DOC_CEILING_DIRS"
"""Colon-separated folders the upward searches never enter (like git's
``GIT_CEILING_DIRECTORIES``): a search starting below one stops there."""


def _search_dirs(path: Path) -> list[Path]:
    """``path``'s folder and its ancestors, cut at the first ceiling folder."""
    start = _start_dir(path)
    ceilings = {
        Path(c).resolve() for c in os.environ.get(CEILING_ENV, "").split(":") if c
    }
    folders = []
    for folder in (start, *start.parents):
        if folder in ceilings and folder != start:
            break
        folders.append(folder)
    return folders


def find_project_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` holding ``.agent-doc/``, if any."""
    for folder in _search_dirs(path):
        if (folder / STATE_DIR).is_dir():
            return folder
    return None


def project_root_for(path: Path) -> Path:
    """A document's project root: ``.agent-doc/`` owner, else git top, else its folder.

    The git top-level is the nearest ancestor holding a ``.git`` entry (a folder,
    or a file for worktrees and submodules); git itself is not run.
    """
    root = find_project_root(path)
    if root is not None:
        return root
    for folder in _search_dirs(path):
        if os.path.lexists(folder / ".git"):
            return folder
    return _start_dir(path)


def doc_hash(path: Path) -> str:
    """Lowercase hex SHA-256 of the canonical absolute path (symlinks resolved)."""
    canonical = Path(path).resolve()
    return sha256_hex(os.fsencode(str(canonical)))


@contextlib.contextmanager
def doc_lock(
    path: Path, *, timeout: float = DEFAULT_TIMEOUT, root: Path | None = None
) -> Iterator[None]:
    """Hold the cross-process write lock of a document (``locks/<hash>.lock``).

    ``root`` defaults to :func:`project_root_for`. Raises :class:`StateError`
    when another process keeps the lock for longer than ``timeout`` seconds,
    and :class:`DocumentError` (creating nothing) unless the document is a
    regular file.
    """
    require_document(path)
    store = StateStore(root if root is not None else project_root_for(path))
    with file_lock(store.lock_path(path), timeout):
        yield


class StateStore:
    """Per-document state files under ``<root>/.agent-doc/``.

    Texts are stored as UTF-8 exactly as given (no newline translation); CRDT
    state as raw bytes. Loading a missing file gives ``None``; deleting one is a
    no-op. Unreadable or corrupt files raise :class:`StateError`.
    """

    __slots__ = ("root",)

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        """The project root (the folder that holds ``.agent-doc/``)."""

    @classmethod
    def for_document(cls, path: Path) -> StateStore:
        """The store of the project a document belongs to (:func:`project_root_for`)."""
        return cls(project_root_for(path))

    @property
    def state_dir(self) -> Path:
        """``<root>/.agent-doc``."""
        return self.root / STATE_DIR

    def _path(self, kind: str, doc: Path, suffix: str) -> Path:
        return self.state_dir / kind / f"{doc_hash(doc)}{suffix}"

    def lock_path(self, doc: Path) -> Path:
        """``locks/<hash>.lock`` of a document."""
        return self._path("locks", doc, ".lock")

    def snapshot_path(self, doc: Path) -> Path:
        """``snapshots/<hash>.md``: what the agent believes the document is."""
        return self._path("snapshots", doc, ".md")

    def baseline_path(self, doc: Path) -> Path:
        """``baselines/<hash>.md``: the document when generation started."""
        return self._path("baselines", doc, ".md")

    def pending_path(self, doc: Path) -> Path:
        """``pending/<hash>.md``: a response saved before it is written."""
        return self._path("pending", doc, ".md")

    def crdt_path(self, doc: Path) -> Path:
        """``crdt/<hash>.yrs``: the CRDT state of the last merge."""
        return self._path("crdt", doc, ".yrs")

    # -- snapshots ---------------------------------------------------------
    def load_snapshot(self, doc: Path) -> str | None:
        """The snapshot text, or ``None`` when there is none."""
        return _load_text(self.snapshot_path(doc))

    def load_snapshot_bytes(self, doc: Path) -> bytes | None:
        """The snapshot's UTF-8 bytes (not decoded), or ``None`` when there is none."""
        return _load_bytes(self.snapshot_path(doc))

    def load_snapshot_indexed(self, doc: Path) -> tuple[bytes, SnapIndex | None] | None:
        """The snapshot's UTF-8 bytes and its index when its index file
        describes them (:mod:`~agent_doc.store.snapshot_index`); ``None``
        when there is no snapshot."""
        return read_indexed(self.snapshot_path(doc))

    def load_snapshot_keyed(
        self, doc: Path
    ) -> tuple[bytes, SnapIndex | None, FileKey] | None:
        """:meth:`load_snapshot_indexed`, with the file's key
        (:func:`~agent_doc.store.snapshot_index.read_keyed`)."""
        return read_keyed(self.snapshot_path(doc))

    def save_snapshot(self, doc: Path, text: str) -> None:
        """Store the snapshot atomically (and its index)."""
        target = self.snapshot_path(doc)
        write_indexed(target, encode_utf8(text), target)

    def save_snapshot_data(
        self, doc: Path, data: bytes | tuple[bytes | memoryview, ...]
    ) -> None:
        """Store the snapshot, already encoded as UTF-8 (whole or in pieces),
        atomically (and its index)."""
        target = self.snapshot_path(doc)
        write_indexed(target, data, target)

    def delete_snapshot(self, doc: Path) -> None:
        """Remove the snapshot if present (and its index)."""
        _delete(self.snapshot_path(doc))
        remove_index(self.snapshot_path(doc))

    # -- baselines ---------------------------------------------------------
    def load_baseline(self, doc: Path) -> str | None:
        """The baseline text, or ``None`` when there is none."""
        return _load_text(self.baseline_path(doc))

    def save_baseline(self, doc: Path, text: str) -> None:
        """Store the baseline atomically."""
        atomic_write_text(self.baseline_path(doc), text)

    def delete_baseline(self, doc: Path) -> None:
        """Remove the baseline if present."""
        _delete(self.baseline_path(doc))

    # -- pending responses (recover) -----------------------------------------
    def load_pending(self, doc: Path) -> str | None:
        """The pending (not yet written) response, or ``None``."""
        found = self.load_pending_answer(doc)
        return found[0] if found is not None else None

    def load_pending_answer(self, doc: Path) -> tuple[str, str | None] | None:
        """The pending response and its answer id (``None`` from an older
        version, which saved none), or ``None`` when nothing is pending."""
        text = _load_text(self.pending_path(doc))
        return split_pending(text) if text is not None else None

    def save_pending(self, doc: Path, text: str, answer_id: str | None = None) -> None:
        """Store a response before writing it, so ``recover`` can replay it;
        with its answer id when it has one (:func:`split_pending` reads it)."""
        head = f"{PENDING_ID_PREFIX}{answer_id} -->\n" if answer_id else ""
        atomic_write_text(self.pending_path(doc), head + text)

    def delete_pending(self, doc: Path) -> None:
        """Remove the pending response (and its expected digest) if present."""
        _delete(self.pending_path(doc))
        _delete(self.expected_path(doc))

    def delete_pending_of(self, doc: Path, answer_id: str) -> None:
        """Remove the pending response if it is answer ``answer_id``'s (a
        concurrent write's copy is left to it)."""
        found = self.load_pending_answer(doc)
        if found is not None and found[1] == answer_id:
            self.delete_pending(doc)

    def expected_path(self, doc: Path) -> Path:
        """``pending/<hash>.expect``: the digest of a pending write's content_ours.

        ``recover`` compares it with the snapshot and the document to tell a
        write that never landed from one killed after the document was written.
        """
        return self._path("pending", doc, ".expect")

    def load_expected(self, doc: Path) -> str | None:
        """The expected content_ours digest of the pending write, or ``None``."""
        return _load_text(self.expected_path(doc))

    def save_expected(self, doc: Path, digest: str) -> None:
        """Store the expected content_ours digest atomically."""
        atomic_write_text(self.expected_path(doc), digest)

    clear_pending = delete_pending

    def list_pending(self) -> list[Path]:
        """Every pending response file of the project, sorted (named by doc hash)."""
        folder = self.state_dir / "pending"
        try:
            return sorted(p for p in folder.iterdir() if p.suffix == ".md")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StateError(f"cannot list {folder}: {exc.strerror or exc}") from exc

    # -- CRDT state ---------------------------------------------------------
    def load_crdt(self, doc: Path) -> bytes | None:
        """The stored CRDT state, or ``None``."""
        return _load_bytes(self.crdt_path(doc))

    def save_crdt(
        self, doc: Path, state: bytes | tuple[bytes | memoryview, ...]
    ) -> None:
        """Store the CRDT state atomically (``state`` may be its pieces, as
        :func:`agent_doc.document.yrs_codec.utf8_state_parts` gives them).

        Not fsynced: the state is the encoding of a text the snapshot and the
        document already hold durably, and no merge depends on it.
        """
        atomic_write_bytes(self.crdt_path(doc), state, durable=False)

    def delete_crdt(self, doc: Path) -> None:
        """Remove the CRDT state if present."""
        _delete(self.crdt_path(doc))


PENDING_ID_PREFIX = "<!-- agent-doc:answer "
"""How a pending copy's first line, which names its answer id, starts."""


def split_pending(text: str) -> tuple[str, str | None]:
    """A pending copy's ``(response, answer id)`` (the id ``None`` when the
    copy names none)."""
    if text.startswith(PENDING_ID_PREFIX):
        head, _, rest = text.partition("\n")
        answer_id = head[len(PENDING_ID_PREFIX) :].removesuffix(" -->").strip()
        if answer_id:
            return rest, answer_id
    return text, None


def _load_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _load_text(path: Path) -> str | None:
    data = _load_bytes(path)
    return None if data is None else decode_state_text(path, data)


def decode_state_text(path: Path, data: bytes) -> str:
    """The text of the state file ``path`` read as ``data`` (a
    :class:`StateError` when it is not UTF-8, as its loaders raise)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateError(f"corrupt state file {path}: not valid UTF-8") from exc


def _delete(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StateError(f"cannot delete {path}: {exc.strerror or exc}") from exc
