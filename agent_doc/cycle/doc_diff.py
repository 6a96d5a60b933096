"""``diff``: the person's changes since the agent's last write (spec §7.12)."""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.diff import DEFAULT_CONTEXT
from agent_doc.document.diff import compute_diff
from agent_doc.document.diff_window import PLAIN
from agent_doc.document.diff_window import window_diff
from agent_doc.store.docfile import decode_document
from agent_doc.store.docfile import read_document_bytes
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.snap_index import SnapIndex
    from agent_doc.write.server_link import ServerLink


class DiffResult(Record):
    """The user's changes since the agent's last write."""

    __slots__ = ("path", "diff", "source", "has_snapshot")

    def __init__(
        self,
        path: Path,
        diff: str | None,
        source: str,
        has_snapshot: bool,
    ) -> None:
        self.path = path
        self.diff = diff
        """Unified diff snapshot → document, ``None`` when there is no change."""
        self.source = source
        """``"buffer"`` (live text from a language server) or ``"file"``."""
        self.has_snapshot = has_snapshot


def document_diff(path: Path, link: ServerLink | None = None) -> DiffResult:
    """Diff the snapshot against the document (the live buffer when one is open)."""
    path = Path(path)
    handle = link.find_owner(path) if link is not None else None
    store = StateStore.for_document(path)
    if handle is None:  # the file: diffed on its bytes, only the window decoded
        data = read_document_bytes(path)
        snapshot = store.load_snapshot_indexed(path)
        diff = _window_diff(snapshot, data)
        if diff is not PLAIN:
            return DiffResult(path, diff, "file", snapshot is not None)  # type: ignore[arg-type]
        del snapshot
        disk = decode_document(path, data)
        del data
    else:
        disk = read_document(path)
    live = handle.text.removeprefix("\ufeff").replace("\r\n", "\n") if handle else None
    current = live if live is not None else disk.text  # as outcome.normalize_text
    previous = store.load_snapshot(path)
    diff = compute_diff(previous or "", current)
    source = "buffer" if handle is not None else "file"
    return DiffResult(path, diff, source, previous is not None)


def _window_diff(
    snapshot: tuple[bytes, SnapIndex | None] | None, data: bytes
) -> str | object | None:
    """:func:`window_diff` of the snapshot's (with its index) and the
    document's bytes; :data:`PLAIN` when the plain path must decide (or
    raise: a NUL byte, bytes that are not UTF-8)."""
    if b"\0" in data:
        return PLAIN
    previous, index = snapshot if snapshot is not None else (b"", None)
    try:
        return window_diff(previous, data, DEFAULT_CONTEXT, index)
    except UnicodeDecodeError:
        return PLAIN
