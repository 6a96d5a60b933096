"""Issue 15: sync with agents that die, vanished panes and the user's own window."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_doc.tmux import registry
from agent_doc.tmux import sync as sync_module
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.claim import claim
from agent_doc.tmux.registry import SessionEntry
from agent_doc.tmux.resync import resync
from agent_doc.tmux.route import failed_start
from agent_doc.tmux.route import route
from agent_doc.tmux.submit import AgentNotReady
from agent_doc.tmux.sync import sync
from tests.cli_runner import agent_doc

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for

pytestmark = pytest.mark.tmux


def _live(tmux: Tmux) -> set[str]:
    return {p for p, info in tmux.panes().items() if not info.dead}


def _gone(tmux: Tmux, pane: str) -> bool:
    info = tmux.panes().get(pane)
    return info is None or info.dead


def test_agent_exiting_at_once_is_pruned_not_restarted(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that exits at once: its pane vanished and sync raised KeyError."""
    exit_agent = Path(__file__).resolve().parents[1] / "data" / "exit_agent.py"
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", f"{sys.executable} {exit_agent}")
    doc = make_doc(project, "k.md")
    result = sync([[str(doc)]], tmux=tmux)  # starts it; raised KeyError before
    # tmux under load may miss an exit's status: a dead pane without one is no
    # failure, and the next sync starts the agent again; its quick exit is
    # noted then (``sync._note_quick_exits``)
    for _ in range(5):
        started = next(iter(registry.load(project).entries.values())).pane
        wait_for(lambda pane=started: _gone(tmux, pane), 10, "the agent to exit")
        if result.warnings:  # it died before or while the sync placed it
            assert (result.window, result.columns, result.files) == (None, (), {})
            assert started in result.warnings[0]
        panes_after_first = set(tmux.panes())
        result = sync([[str(doc)]], tmux=tmux)
        if result.window is None:
            break
    second = result
    assert (second.window, second.columns, second.files) == (None, (), {})
    assert f"its agent in pane {started} exited at once" in second.warnings[0]
    assert "not restarted automatically" in second.warnings[0]
    for _ in range(3):  # every focus change in the editor sends a sync
        again = sync([[str(doc)]], tmux=tmux)
        assert again.window is None
        assert "not restarted automatically" in again.warnings[0]
    assert set(tmux.panes()) == panes_after_first, "no agent was started again"
    kept = [e.pane for e in registry.load(project).entries.values()]
    assert kept == [started], "sync prunes nothing (only resync --fix does)"
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", "true")
    assert failed_start(load_doc(doc)) is not None
    with pytest.raises(AgentNotReady, match="exited"):
        route(doc, prompt_timeout_s=5, tmux=tmux)  # explicit: tries again
    assert failed_start(load_doc(doc)) is None


def test_agent_dying_while_a_sync_runs_is_not_restarted(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by CI: the agent died after sync had looked for quick exits and
    before it looked for the document's pane; sync then went by a stale view
    (a second agent under load in the Neovim test, nothing said here)."""
    # exits 3 on its first line; the child holds the terminal so tmux 3.3
    # records the status (tests/data/exit_agent.py)
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", "sh -c 'read l; sleep 1 & exit 3'")
    doc = make_doc(project, "r.md")
    sync([[str(doc)]], tmux=tmux)
    started = next(iter(registry.load(project).entries.values())).pane
    real_repair = sync_module.repair_layout

    def dies_meanwhile(*args: object, **kwargs: object) -> None:
        tmux.send_text(started, "bye")
        wait_for(lambda: tmux.panes()[started].dead, 10, "the agent to exit")
        real_repair(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_module, "repair_layout", dies_meanwhile)
    panes_before = set(tmux.panes())
    second = sync([[str(doc)]], tmux=tmux)
    assert set(tmux.panes()) == panes_before, "no agent was started again"
    assert tmux.panes()[started].dead, "nor in its old pane"
    assert second.window is None
    assert (
        f"its agent in pane {started} exited at once (status 3)" in second.warnings[0]
    )


def test_dead_and_vanished_panes_are_left_to_resync_fix(
    tmux: Tmux, project: Path
) -> None:
    a, b, c = (make_doc(project, n) for n in ("a.md", "b.md", "c.md"))
    live = spawn_agent(tmux)
    claim(a, pane=live, tmux=tmux)
    dead = spawn_agent(tmux)
    tmux.keep_on_exit(dead)
    claim(b, pane=dead, tmux=tmux)
    tmux.send_text(dead, "/exit 4")
    with registry.locked(project) as reg:
        key = load_doc(c).key or ""
        reg.bind(
            key, SessionEntry(pane="%9", file="c.md", started="2020-01-01T00:00:00Z")
        )
    wait_for(lambda: tmux.panes()[dead].dead, 10, "agent exit")
    result = sync([[str(a)]], tmux=tmux)
    assert result.ok
    assert result.columns == ((live,),)
    assert len(registry.load(project).entries) == 3, "only resync --fix prunes"
    report = resync(project, fix=True, tmux=tmux)
    assert sorted(p.pane for p in report.pruned) == sorted([dead, "%9"])
    assert set(registry.load(project).entries) == {load_doc(a).key}


def test_sync_never_pushes_the_callers_window(tmux: Tmux, project: Path) -> None:
    """The editor's window at index 0 was pushed to 2 by a new agent window."""
    editor = tmux.run("list-panes", "-t", "=main:0", "-F", "#{pane_id}")[0]
    doc = make_doc(project, "w.md")
    result = sync([[str(doc)]], client_pane=editor, tmux=tmux)
    assert result.ok
    panes = tmux.panes()
    assert panes[editor].window_index == 0
    assert panes[result.columns[0][0]].window_name == "agent-doc"
    assert panes[result.columns[0][0]].window_index != 0


def test_cli_sync_output_reads_well(tmux: Tmux, project: Path) -> None:
    """`sync --col f.md` printed `window -: ` and exited 0."""
    make_doc(project, "f.md", session="")
    res = agent_doc("sync", "--col", "f.md", cwd=project)
    assert res.returncode == 1
    assert res.stdout == ""
    assert res.stderr == (
        "warning: f.md: not a session document (no agent_doc_session; "
        "agent-doc claim f.md makes it one); skipped\n"
    )
    left, right = make_doc(project, "left.md"), make_doc(project, "right.md")
    pl, pr = spawn_agent(tmux), spawn_agent(tmux)
    claim(left, pane=pl, tmux=tmux)
    claim(right, pane=pr, tmux=tmux)
    res = agent_doc("sync", "--col", "left.md", "--col", "right.md,f.md", cwd=project)
    assert res.returncode == 0, res.stderr
    window = tmux.panes()[pl].window_id
    assert res.stdout == f"window {window}: left.md ({pl}) | right.md ({pr})\n"
    assert "f.md: not a session document" in res.stderr
    data = json.loads(
        agent_doc("sync", "--col", "left.md", "--json", cwd=project).stdout
    )
    assert data["columns"] == [[pl]]
    assert data["warnings"] == []
