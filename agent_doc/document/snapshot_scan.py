"""The snapshot's bytes and their block scan, shared by one command's steps.

``preflight`` asks about the same snapshot three times: the commit's "nothing
to commit" check (against HEAD's blob), the window diff and the excerpts. The
fenced and comment blocks of a 9.5 MB snapshot take one pass of ≈ 13 ms
(:func:`~agent_doc.document.diff_window.block_spans`); a :class:`SnapshotScan`
holds the snapshot's index (:mod:`~agent_doc.store.snapshot_index`) when its
file has one, and then no step scans it whole (each starts at a checkpoint);
without one it makes the whole scan once for the commit check
(:func:`same_after_scanned`) and the excerpts
(:func:`~agent_doc.document.excerpt_window.resumed_context_utf8`). The window
diff keeps its own scan (:mod:`~agent_doc.document.diff_window`).
"""

from __future__ import annotations

from agent_doc.document.diff_window import block_spans
from agent_doc.document.diff_window import neutral_before
from agent_doc.document.diff_window import window_end
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.document.snap_index import SnapIndex

__all__ = ["SnapshotScan", "same_after_scanned"]

_CHUNK = 1 << 16


class SnapshotScan:
    """A snapshot's UTF-8 as one command read it (``None``: not read, or
    written since), and its block spans, computed on first use."""

    __slots__ = ("checked", "data", "index", "key", "_blocks")

    def __init__(self, data: bytes | None = None) -> None:
        self.data = data
        self.index: SnapIndex | None = None
        """The snapshot's index (:mod:`~agent_doc.store.snapshot_index`) when
        its file has one that describes ``data``."""
        self.key: object = None
        """The key of the file ``data`` was read from (its inode, size and
        times: :func:`~agent_doc.store.snapshot_index.file_key`), when known:
        a file with the same key still holds ``data``."""
        self.checked = False
        """Whether ``data`` was checked valid UTF-8."""
        self._blocks: list[tuple[int, int]] | None = None

    def keep(
        self,
        data: bytes | None,
        index: SnapIndex | None = None,
        key: object = None,
        *,
        checked: bool = False,
    ) -> None:
        """Remember ``data`` as the snapshot (its blocks kept if the same
        object), with its index, its file's key and whether it was checked."""
        if data is not self.data:
            self.data, self._blocks = data, None
        self.index = index if data is not None else None
        self.key = key if data is not None else None
        self.checked = checked and data is not None

    def blocks(self) -> list[tuple[int, int]]:
        """``block_spans(self.data)``, computed once."""
        assert self.data is not None
        if self._blocks is None:
            self._blocks = block_spans(self.data)
        return self._blocks


def same_after_scanned(
    scan: SnapshotScan, b: bytes, bare: Callable[[str], str]
) -> bool:
    """:func:`~agent_doc.document.diff_window.same_after_utf8` of the snapshot
    ``scan.data`` and ``b``, with the snapshot's block scan taken from ``scan``."""
    a = scan.data
    assert a is not None
    head = common_prefix(a, b, chunk=_CHUNK)
    tail = common_suffix(a, b, min(len(a), len(b)) - head, chunk=_CHUNK)
    if head == len(a) == len(b):
        return True
    blocks_a = scan.blocks()
    start = neutral_before(a, head, blocks_a)
    blocks_b = [r for r in blocks_a if r[1] <= start] + block_spans(b, start)
    end = window_end(a, b, len(a) - tail, start, blocks_a, blocks_b)
    old = a[start:end].decode("utf-8")
    new = b[start : end + len(b) - len(a)].decode("utf-8")
    return bare(old) == bare(new)
