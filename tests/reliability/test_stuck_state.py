"""Leftover state never sticks: empty pending responses, locks of deleted documents.

* An empty ``pending/<hash>.md`` once made ``recover`` fail ("empty response")
  on every run and kept it forever; preflight retried it silently each turn.
  Both now drop it with one line on stderr.
* ``gc`` left ``locks/<hash>.lock`` of deleted documents behind; it now removes
  them, but never a lock a process holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.store.locks import file_lock
from agent_doc.store.state import StateStore
from tests.reliability._util import make_project
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc


def _project_with_empty_pending(base: Path, text: str) -> tuple[Path, Path, Path]:
    root = make_project(base / "p")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    store = StateStore(root)
    pending = store.pending_path(doc)
    pending.parent.mkdir(parents=True)
    pending.write_text(text)
    store.expected_path(doc).write_text("0" * 64)
    return root, doc, pending


@pytest.mark.parametrize("text", ["", "  \n\n"], ids=["empty", "blank"])
@pytest.mark.parametrize("scope", ["project", "file"])
def test_recover_drops_an_empty_pending_response(
    tmp_path: Path, text: str, scope: str
) -> None:
    """Exit 0, one line naming it, the file gone; the next run has nothing to do."""
    root, doc, pending = _project_with_empty_pending(tmp_path, text)
    args = ["recover"] if scope == "project" else ["recover", str(doc)]
    done = run_cli(args, cwd=root)
    err = done.stderr.decode().strip()
    assert done.returncode == 0, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("dropped:"), err
    assert "empty response" in err
    assert not pending.exists()
    assert not StateStore(root).expected_path(doc).exists()
    again = run_cli(args, cwd=root)
    assert again.returncode == 0
    assert again.stderr.decode().strip() == "nothing to recover"
    assert doc.read_text() == template_doc()


def test_preflight_drops_an_empty_pending_response(tmp_path: Path) -> None:
    """Preflight notes the drop on one line and goes on."""
    root, doc, pending = _project_with_empty_pending(tmp_path, "")
    done = run_cli(["preflight", "--no-wait", str(doc)], cwd=root)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    notes = [line for line in err.splitlines() if "pending" in line]
    assert len(notes) == 1, err
    assert "dropped an empty pending response" in notes[0]
    assert not pending.exists()


def test_gc_removes_locks_of_deleted_documents_only(tmp_path: Path) -> None:
    """Locks of deleted documents go; a living document's and a held one stay."""
    root = make_project(tmp_path / "p")
    store = StateStore(root)
    living = root / "living.md"
    living.write_text(template_doc())
    gone = root / "gone.md"
    held = root / "held.md"
    for doc in (living, gone, held):
        doc.write_text(template_doc())
        with file_lock(store.lock_path(doc)):
            pass
    gone.unlink()
    held.unlink()
    gone_lock, held_lock = store.lock_path(gone), store.lock_path(held)
    with file_lock(held_lock):  # a process still inside (this one)
        done = run_cli(["gc"], cwd=root)
    assert done.returncode == 0, done.stderr.decode()
    assert not gone_lock.exists()
    assert held_lock.exists()
    assert store.lock_path(living).exists()
    assert str(gone_lock.name) in done.stderr.decode() + done.stdout.decode()
