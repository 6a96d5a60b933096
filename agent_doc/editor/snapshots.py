"""Snapshots for the editor, read once and reused until the file changes.

The "will be sent" marks compare every version of a buffer with the document's
snapshot; :class:`SnapshotCache` reads the snapshot file only when its mtime or
size changed (one ``stat`` per look-up), so typing never re-reads it.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.store.state import StateStore


class SnapshotCache:
    """Document path → its snapshot text, keyed by the snapshot file's stamp."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[tuple[int, int] | None, str | None]] = {}
        self._files: dict[Path, Path] = {}

    def get(self, doc: Path) -> str | None:
        """The snapshot of ``doc`` (``None``: no snapshot yet)."""
        snapshot = self._files.get(doc)
        if snapshot is None:
            snapshot = StateStore.for_document(doc).snapshot_path(doc)
            self._files[doc] = snapshot
        try:
            st = snapshot.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = self._cache.get(doc)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = StateStore.for_document(doc).load_snapshot(doc) if stamp else None
        self._cache[doc] = (stamp, text)
        return text

    def forget(self, doc: Path) -> None:
        """Drop the cached snapshot of ``doc``."""
        self._cache.pop(doc, None)
        self._files.pop(doc, None)
