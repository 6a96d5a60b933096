"""One turn per document across processes: the flock turn lock and its record."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from agent_doc.automation.watch import Watcher
from agent_doc.cycle.turn_lock import TurnRecord
from agent_doc.cycle.turn_lock import acquire_turn
from agent_doc.cycle.turn_lock import running_turn
from agent_doc.cycle.turn_lock import turn_paths
from agent_doc.errors import DocumentError
from agent_doc.errors import TurnRunning
from tests.turn_holder import turn_held

DOC = "---\nagent_doc_session: 11111111-2222-3333-4444-555555555555\n---\nHi?\n"


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "plan.md"
    path.write_text(DOC)
    return path


def test_a_second_turn_is_refused_at_once_naming_the_running_one(doc: Path) -> None:
    with turn_held(doc, "run") as holder:
        start = time.monotonic()
        with pytest.raises(TurnRunning) as refused:
            acquire_turn(doc, "run")
        took = time.monotonic() - start
        record = running_turn(doc)
    message = str(refused.value)
    assert message.startswith(f"{doc} already has a turn running (pid {holder.pid}, ")
    assert "`run`, since " in message
    assert message.endswith("; use --wait to queue")
    assert took < 2.0
    assert record is not None
    assert record.pid == holder.pid
    assert record.command == "run"


def test_the_turn_is_free_again_and_its_record_gone_after_release(doc: Path) -> None:
    lock_path, record_path = turn_paths(doc)
    with acquire_turn(doc, "watch"):
        record = json.loads(record_path.read_text())
        assert record["pid"] == os.getpid()
        assert record["command"] == "watch"
        with pytest.raises(TurnRunning):  # a second open file: also refused
            acquire_turn(doc, "run")
    assert not record_path.exists()
    assert lock_path.exists()  # never removed: a waiter may hold it open
    assert running_turn(doc) is None
    acquire_turn(doc, "run").release()


def test_a_killed_turn_does_not_block_the_next(doc: Path) -> None:
    with turn_held(doc) as holder:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        _, record_path = turn_paths(doc)
        assert record_path.exists()  # the dead holder's record stays behind
        assert running_turn(doc) is None
        with acquire_turn(doc, "run"):
            assert json.loads(record_path.read_text())["pid"] == os.getpid()


def test_wait_says_so_once_and_takes_the_turn_when_it_ends(doc: Path) -> None:
    told: list[TurnRecord] = []
    with turn_held(doc) as holder:

        def on_wait(record: TurnRecord) -> None:
            told.append(record)
            assert holder.stdin is not None
            threading.Timer(0.3, holder.stdin.close).start()  # the turn ends

        with acquire_turn(doc, "run", wait_s=60, on_wait=on_wait):
            assert holder.wait(timeout=30) == 0
    assert [r.pid for r in told] == [holder.pid]


def test_wait_is_bounded(doc: Path) -> None:
    with (
        turn_held(doc),
        pytest.raises(TurnRunning, match=r"did not end within 0\.5 s"),
    ):
        acquire_turn(doc, "run", wait_s=0.5)


def test_no_lock_is_created_for_something_that_is_not_a_document(
    project: Path,
) -> None:
    with pytest.raises(DocumentError):
        acquire_turn(project / "missing.md", "run")
    assert not (project / ".agent-doc" / "turns").exists()


def test_watch_queues_a_document_whose_turn_another_process_runs(
    doc: Path, project: Path
) -> None:
    events: list[dict[str, object]] = []
    watcher = Watcher(project, report=events.append)
    with turn_held(doc) as holder:
        watcher._consider(doc.resolve(), time.monotonic())
        watcher._consider(doc.resolve(), time.monotonic())
    kinds = [e["event"] for e in events]
    assert kinds == ["turn-running"]  # said once, no cycle started
    assert f"pid {holder.pid}" in str(events[0]["running"])
    assert doc.resolve() in watcher.pending  # considered again later
