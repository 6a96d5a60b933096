"""``preflight`` takes the snapshot's bytes the commit read while the file
keeps the key they were read with (inode, size, times: one ``stat``), and
reads it again otherwise — as the byte comparison (no key) decides on the
same files: replaced atomically or written in place, with the same size and
modification time, or removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_doc.cycle.preflight_utf8 import Sides
from agent_doc.document.snapshot_scan import SnapshotScan
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.state import StateStore


def _same_time(path: Path, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("keyed", [True, False])
@pytest.mark.parametrize("change", [None, "atomic", "in place", "removed"])
def test_the_commits_snapshot_is_taken_while_its_file_is_the_same(
    tmp_path: Path, keyed: bool, change: str | None
) -> None:
    (tmp_path / ".agent-doc").mkdir()
    store, doc = StateStore(tmp_path), tmp_path / "doc.md"
    doc.write_text("doc\n", "utf-8")
    store.save_snapshot(doc, "one\n")
    path = store.snapshot_path(doc)
    found = store.load_snapshot_keyed(doc)
    assert found is not None
    scan = SnapshotScan()
    scan.keep(*(found if keyed else found[:2]))
    assert (scan.key is not None) is keyed
    before = path.stat()
    if change == "atomic":
        atomic_write_bytes(path, b"two\n")
        _same_time(path, before)
    elif change == "in place":
        path.write_bytes(b"six\n")
        _same_time(path, before)
    elif change == "removed":
        path.unlink()
    sides = Sides(b"doc\n", None)
    sides.load_snapshot(store, doc, scan)
    if change is None:
        assert sides.snapshot is found[0]  # taken, not read again
    elif change == "removed":
        assert sides.snapshot is None
    else:
        assert sides.snapshot == path.read_bytes()
        assert sides.snapshot is not found[0]
