"""The registry (sessions.json) and the tmux adapter against a real server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agent_doc.errors import StateError
from agent_doc.errors import TmuxError
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.registry import SessionEntry

from .conftest import spawn_agent

pytestmark = pytest.mark.tmux


def test_bulk_metadata_and_prune(tmux: Tmux, project: Path) -> None:
    pane = spawn_agent(tmux)
    panes = tmux.panes()
    assert pane in panes
    assert panes[pane].session == "main"
    assert any(w.window_id == panes[pane].window_id for w in tmux.windows())
    with registry.locked(project) as reg:
        reg.bind("live", SessionEntry(pane=pane, started="2026-01-02T00:00:00Z"))
        reg.entries["older"] = SessionEntry(pane=pane, started="2026-01-01T00:00:00Z")
        reg.entries["dead"] = SessionEntry(pane="%999")
        removed = reg.prune(tmux.panes())
    assert sorted(removed) == ["dead", "older"]
    assert list(registry.load(project).entries) == ["live"]


def test_bind_keeps_one_document_per_pane(project: Path) -> None:
    with registry.locked(project) as reg:
        reg.bind("a", SessionEntry(pane="%1"))
        reg.bind("b", SessionEntry(pane="%1"))
        reg.bind("b", SessionEntry(pane="%2"))
    assert {k: e.pane for k, e in registry.load(project).entries.items()} == {"b": "%2"}


def test_concurrent_writers_lose_nothing(project: Path) -> None:
    def worker(n: int) -> None:
        for i in range(10):
            with registry.locked(project) as reg:
                reg.bind(f"k{n}-{i}", SessionEntry(pane=f"%{n * 100 + i}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(registry.load(project).entries) == 40


def test_corrupt_registry_is_backed_up_and_reported(project: Path) -> None:
    path = registry.registry_path(project)
    path.write_text("{not json", "utf-8")
    with pytest.raises(StateError, match=r"sessions.json is corrupt: .*backed up to"):
        registry.load(project)
    backups = list(path.parent.glob("sessions.json.corrupt-*"))
    assert len(backups) == 1
    assert backups[0].read_text("utf-8") == "{not json"
    assert registry.load(project).entries == {}


def test_registry_file_format(project: Path) -> None:
    with registry.locked(project) as reg:
        reg.bind(
            "u", SessionEntry(pane="%4", pid=1, cwd="/p", file="a.md", window="@1")
        )
    data = json.loads(registry.registry_path(project).read_text("utf-8"))
    assert data == {
        "u": {
            "pane": "%4",
            "pid": 1,
            "cwd": "/p",
            "started": "",
            "file": "a.md",
            "window": "@1",
            "socket": "",
        }
    }


def test_tmux_missing_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TmuxError, match=r"^tmux is not installed$"):
        Tmux("nothing").panes()


def test_not_inside_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        TmuxError, match=r"not inside tmux \(TMUX_PANE unset\); use --pane"
    ):
        Tmux("x").current_pane()


def test_no_server_means_no_panes() -> None:
    assert Tmux("agentdoc-test-never-started").panes() == {}


def test_reading_a_missing_registry_creates_nothing(tmp_path: Path) -> None:
    from agent_doc.tmux.registry import load

    assert load(tmp_path).entries == {}
    assert not (tmp_path / ".agent-doc").exists()
