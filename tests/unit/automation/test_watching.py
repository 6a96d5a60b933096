"""The watch loop guard, content hashing, the pid/lock control, discovery."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_doc.automation.watch import LoopGuard
from agent_doc.automation.watch import Watcher
from agent_doc.automation.watch import WatchOptions
from agent_doc.automation.watch import content_hash
from agent_doc.automation.watch_daemon import DaemonLock
from agent_doc.automation.watch_daemon import read_pid
from agent_doc.automation.watch_daemon import stop_watch
from agent_doc.automation.watch_daemon import watch_status
from agent_doc.errors import StateError


def test_content_hash_ignores_boundary_markers() -> None:
    plain = "a\n<!-- agent:exchange -->\nq\n<!-- /agent:exchange -->\n"
    marked = plain.replace("q\n", "q\n<!-- agent:boundary:0123abcd -->\n")
    assert content_hash(plain) == content_hash(marked)
    assert content_hash(plain) != content_hash(plain + "x")


def test_first_change_submits_and_echo_converges() -> None:
    guard = LoopGuard(max_cycles=3)
    assert guard.decide("d", 0.0, "h1", 1.5) == "submit"
    guard.submitted("d", 1.0, "h2")
    assert guard.decide("d", 1.2, "h2", 1.5) == "converged"


def test_agent_triggered_changes_stop_at_max_cycles() -> None:
    guard = LoopGuard(max_cycles=3)
    assert guard.decide("d", 0.0, "h0", 1.5) == "submit"
    guard.submitted("d", 0.0, "h0'")
    for digest, expected in enumerate(("submit", "submit", "max-cycles"), 1):
        now = float(digest)
        decision = guard.decide("d", now, f"h{digest}", 1.5)
        assert decision == expected
        if decision == "submit":
            guard.submitted("d", now, f"h{digest}'")
    assert guard.cycles("d") == 3


def test_human_change_outside_the_window_resets_the_counter() -> None:
    guard = LoopGuard(max_cycles=1)
    assert guard.decide("d", 0.0, "a", 1.5) == "submit"
    guard.submitted("d", 0.0, "a'")
    assert guard.decide("d", 1.0, "b", 1.5) == "max-cycles"
    assert guard.decide("d", 10.0, "c", 1.5) == "submit"
    guard.submitted("d", 10.0, "c'")
    assert guard.cycles("d") == 1


def test_daemon_lock_is_exclusive_and_release_removes_pid(project: Path) -> None:
    lock = DaemonLock(project)
    assert read_pid(project) == os.getpid()
    status = watch_status(project)
    assert status.running
    assert status.pid == os.getpid()
    with pytest.raises(StateError, match="already running"):
        DaemonLock(project)
    lock.release()
    assert not (project / ".agent-doc" / "watch.pid").exists()
    assert not watch_status(project).running


def test_removed_pid_file_tells_the_daemon_to_exit(project: Path) -> None:
    lock = DaemonLock(project)
    (project / ".agent-doc" / "watch.pid").unlink()
    assert not lock.still_owned()
    lock.release()


def test_stop_without_daemon_reports_not_running(project: Path) -> None:
    result = stop_watch(project)
    assert not result.running
    assert not result.stale_pid_removed


def test_discover_reads_sessions_json_and_extra_files(project: Path) -> None:
    (project / "a.md").write_text("---\nagent_doc_write: merge\n---\nA\n")
    (project / "b.md").write_text("B\n")
    (project / ".agent-doc" / "sessions.json").write_text(
        json.dumps(
            {
                "s1": {"pane": "%1", "file": "a.md"},
                "s2": {"pane": "%2", "file": "gone.md"},
            }
        )
    )
    watcher = Watcher(project, WatchOptions(files=(project / "b.md",)))
    found = watcher.discover()
    assert found == {
        (project / "a.md").resolve(): False,
        (project / "b.md").resolve(): True,
    }
