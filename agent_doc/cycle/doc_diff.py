"""``diff``: the person's changes since the agent's last write (spec §7.12)."""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.diff import compute_diff
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
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
    disk = read_document(path)
    handle = link.find_owner(path) if link is not None else None
    live = handle.text.removeprefix("\ufeff").replace("\r\n", "\n") if handle else None
    current = live if live is not None else disk.text  # as outcome.normalize_text
    previous = StateStore.for_document(path).load_snapshot(path)
    diff = compute_diff(previous or "", current)
    source = "buffer" if handle is not None else "file"
    return DiffResult(path, diff, source, previous is not None)
