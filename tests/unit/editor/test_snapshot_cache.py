"""The editor's snapshot cache: a view of decoded pieces, re-read on change."""

from __future__ import annotations

from pathlib import Path

import pytest

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
