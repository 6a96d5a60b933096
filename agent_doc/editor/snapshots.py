"""Snapshots for the editor, read once and reused until the file changes.

The "will be sent" marks compare every version of a buffer with the document's
snapshot; :class:`SnapshotCache` reads the snapshot file only when its mtime or
size changed (one ``stat`` per look-up), so typing never re-reads it. The
text is kept as a :class:`~agent_doc.document.textlike.ChunkView` of pieces
decoded one by one (:func:`~agent_doc.document.textlike.decoded_pieces`), not
one ``str``: one astral character makes CPython store a whole ``str`` at 4
bytes a character (75 MB for a 19 MB snapshot), while each piece keeps its own
narrowest kind, and reading it makes no whole ``str`` either.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import decoded_like
from agent_doc.document.textlike import decoded_pieces
from agent_doc.errors import StateError
from agent_doc.store.state import StateStore


class SnapshotCache:
    """Document path → its snapshot text, keyed by the snapshot file's stamp."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[tuple[int, int] | None, ChunkView | None]] = {}
        self._files: dict[Path, Path] = {}

    def get(self, doc: Path, like: ChunkView | None = None) -> ChunkView | None:
        """The snapshot of ``doc`` as a view of its pieces (``None``: no
        snapshot yet; :class:`~agent_doc.store.state.StateError` when it is
        not UTF-8). Read anew when its file changed: then the chunks of
        ``like`` (the open document's view) are held wherever the snapshot
        holds their text (:func:`~agent_doc.document.textlike.decoded_like`)."""
        snapshot, stamp = self._stamp(doc)
        cached = self._cache.get(doc)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        data = StateStore.for_document(doc).load_snapshot_bytes(doc) if stamp else None
        try:
            if data is None:
                text = None
            elif like is None:
                text = decoded_pieces(data)
            else:
                text = decoded_like(data, like)
        except UnicodeDecodeError as exc:
            raise StateError(f"corrupt state file {snapshot}: not valid UTF-8") from exc
        self._cache[doc] = (stamp, text)
        return text

    def holds(self, doc: Path, snapshot: object) -> bool:
        """Whether ``snapshot`` is what :meth:`get` gives for ``doc`` now
        (its file unchanged since it was read), without reading the file."""
        cached = self._cache.get(doc)
        return (
            cached is not None
            and cached[1] is snapshot
            and cached[0] == self._stamp(doc)[1]
        )

    def _stamp(self, doc: Path) -> tuple[Path, tuple[int, int] | None]:
        """The snapshot file of ``doc`` and its (mtime, size), ``None``
        when there is none."""
        snapshot = self._files.get(doc)
        if snapshot is None:
            snapshot = StateStore.for_document(doc).snapshot_path(doc)
            self._files[doc] = snapshot
        try:
            st = snapshot.stat()
        except OSError:
            return snapshot, None
        return snapshot, (st.st_mtime_ns, st.st_size)

    def forget(self, doc: Path) -> None:
        """Drop the cached snapshot of ``doc``."""
        self._cache.pop(doc, None)
        self._files.pop(doc, None)
