"""The editor's snapshot cache: a view of decoded pieces, re-read on change."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.document.textlike import ChunkView
from agent_doc.editor.snapshots import SnapshotCache
from agent_doc.errors import StateError
from agent_doc.store.state import StateStore


def _document(tmp_path: Path) -> Path:
    (tmp_path / ".agent-doc").mkdir()
    doc = tmp_path / "plan.md"
    doc.write_text("x\n")
    return doc


def test_the_snapshot_is_a_view_of_its_text_read_once_per_change(
    tmp_path: Path,
) -> None:
    doc = _document(tmp_path)
    cache = SnapshotCache()
    assert cache.get(doc) is None
    text = "# Plan 🚀\n\n" + "a long line of prose — café\n" * 5000
    StateStore.for_document(doc).save_snapshot(doc, text)
    view = cache.get(doc)
    assert view is not None
    assert len(view) == len(text)
    assert view[:20] == text[:20]
    assert view.join_unkept() == text
    assert view.joined is None
    assert len(list(view.chunk_spans())) > 1
    assert cache.get(doc) is view  # unchanged file: the same object
    StateStore.for_document(doc).save_snapshot(doc, text + "more\n")
    again = cache.get(doc)
    assert again is not view
    assert again is not None
    assert again.join_unkept() == text + "more\n"


def test_a_snapshot_that_is_not_utf8_is_a_state_error(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    path = StateStore.for_document(doc).snapshot_path(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"fine\n" * 40000 + b"\xff\n")
    with pytest.raises(StateError, match="not valid UTF-8"):
        SnapshotCache().get(doc)


def test_a_snapshot_read_while_its_document_is_open_shares_its_chunks(
    tmp_path: Path,
) -> None:
    """Read with the open document's view, the snapshot holds that view's
    chunk objects where it equals them (no second copy of the text); it is
    held until its file changes, which :meth:`holds` tells without a read."""
    doc = _document(tmp_path)
    text = "# Plan 🚀\n\n" + "a long line of prose — café\n" * 5000
    StateStore.for_document(doc).save_snapshot(doc, text)
    typed = text + "a question typed since\n"
    chunks = [typed[i : i + 4096] for i in range(0, len(typed), 4096)]
    cache = SnapshotCache()
    view = cache.get(doc, ChunkView(chunks))
    assert view is not None
    assert view.join_unkept() == text
    shared = {id(c) for _s, c in view.chunk_spans()} & {id(c) for c in chunks}
    assert len(shared) == len(chunks) - 1  # all but the last, which differs
    assert cache.holds(doc, view)
    assert not cache.holds(doc, None)
    StateStore.for_document(doc).save_snapshot(doc, typed)
    assert not cache.holds(doc, view)  # changed: told without reading it
    assert cache.get(doc) is not view
