"""sync (columns, stash, rescue, memory), layout and resync --fix on real tmux."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from agent_doc.tmux.layout import layout
from agent_doc.tmux.resync import resync
from agent_doc.tmux.sync import sync

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for

pytestmark = pytest.mark.tmux


def _claimed(tmux: Tmux, project: Path, *names: str) -> tuple[list[Path], list[str]]:
    docs, panes = [], []
    for name in names:
        doc = make_doc(project, name)
        pane = spawn_agent(tmux)
        claim(doc, pane=pane, tmux=tmux)
        docs.append(doc)
        panes.append(pane)
    return docs, panes


def test_sync_two_columns_order_and_split_directions(tmux: Tmux, project: Path) -> None:
    (a, b, c), (pa, pb, pc) = _claimed(tmux, project, "a.md", "b.md", "c.md")
    result = sync([[str(a), ""], [str(b), str(c)], []], focus=str(b), tmux=tmux)
    assert result.ok
    assert result.columns == ((pa,), (pb, pc))
    panes = tmux.panes()
    assert {panes[p].window_name for p in (pa, pb, pc)} == {"agent-doc"}
    assert panes[pa].left < panes[pb].left
    assert panes[pb].left == panes[pc].left
    assert panes[pb].top < panes[pc].top
    assert panes[pa].top == panes[pb].top == 0
    assert panes[pb].active
    assert panes[pa].window_index == 0
    again = sync([[str(a)], [str(b), str(c)]], tmux=tmux)
    assert again.ok
    assert not again.changed


def test_sync_stashes_then_rescues(tmux: Tmux, project: Path) -> None:
    (a, b, c), (pa, pb, pc) = _claimed(tmux, project, "a.md", "b.md", "c.md")
    sync([[str(a)], [str(b)]], tmux=tmux)
    result = sync([[str(a)], [str(c)]], tmux=tmux)
    assert result.columns == ((pa,), (pc,))
    panes = tmux.panes()
    assert panes[pb].window_name == "stash"
    assert not panes[pb].dead
    back = sync([[str(a)], [str(b)]], tmux=tmux)
    assert back.columns == ((pa,), (pb,))
    assert tmux.panes()[pc].window_name == "stash"
    assert len(registry.load(project).entries) == 3


def test_sync_column_memory_and_unmanaged(tmux: Tmux, project: Path) -> None:
    (a, b), (pa, pb) = _claimed(tmux, project, "a.md", "b.md")
    sync([[str(a)], [str(b)]], tmux=tmux)
    plain = project / "readme.md"
    plain.write_text("no frontmatter\n", "utf-8")
    result = sync([[str(a)], [str(plain)]], tmux=tmux)
    assert result.columns == ((pa,), (pb,))
    assert plain.read_text("utf-8") == "no frontmatter\n"
    memory = json.loads((project / ".agent-doc" / "last_layout.json").read_text())
    assert memory == {"0": str(a), "1": str(b)}


def test_sync_provisions_missing_panes(tmux: Tmux, project: Path) -> None:
    a, b = make_doc(project, "a.md"), make_doc(project, "b.md")
    result = sync([[str(a)], [str(b)]], tmux=tmux)
    assert result.ok
    assert len(result.files) == 2
    assert len(registry.load(project).entries) == 2
    pa, pb = result.columns[0][0], result.columns[1][0]
    panes = tmux.panes()
    assert panes[pa].left < panes[pb].left


def test_layout_side_by_side(tmux: Tmux, project: Path) -> None:
    (a, b), (pa, pb) = _claimed(tmux, project, "a.md", "b.md")
    result = layout([str(a), str(b), str(project / "nope.md")], tmux=tmux)
    panes = tmux.panes()
    assert panes[pa].window_id == panes[pb].window_id == result.window
    assert panes[pa].top == panes[pb].top
    assert len(result.warnings) == 1


def test_resync_wrong_process_unbinds_but_keeps_process(
    tmux: Tmux, project: Path
) -> None:
    doc = make_doc(project, "w.md")
    pane = tmux.run("new-window", "-d", "-P", "-F", "#{pane_id}", "exec sleep 600")[0]
    claim(doc, pane=pane, tmux=tmux)
    report = resync(project, tmux=tmux)
    assert [i.kind for i in report.issues] == ["wrong-process"]
    assert len(registry.load(project).entries) == 1
    report = resync(project, fix=True, tmux=tmux)
    assert report.issues[0].fixed
    assert registry.load(project).entries == {}
    assert pane in tmux.panes()


def test_resync_wrong_session_kills_pane(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "s.md", body="# S\n")
    text = doc.read_text("utf-8").replace("---\n#", "tmux_session: elsewhere\n---\n#")
    doc.write_text(text, "utf-8")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane, tmux=tmux)
    report = resync(project, fix=True, tmux=tmux)
    assert [i.kind for i in report.issues] == ["wrong-session"]
    assert pane not in tmux.panes()
    assert registry.load(project).entries == {}


def test_resync_wrong_window_stashes(tmux: Tmux, project: Path) -> None:
    (a, b, _c), (_pa, _pb, pc) = _claimed(tmux, project, "a.md", "b.md", "c.md")
    sync([[str(a)], [str(b)]], tmux=tmux)
    report = resync(project, fix=True, tmux=tmux)
    assert [(i.kind, i.pane) for i in report.issues] == [("wrong-window", pc)]
    assert tmux.panes()[pc].window_name == "stash"
    assert len(registry.load(project).entries) == 3


def test_resync_purges_idle_stash_but_never_agents(tmux: Tmux, project: Path) -> None:
    shell = tmux.run("new-window", "-d", "-n", "stash", "-P", "-F", "#{pane_id}",
                     "/bin/sh")[0]  # fmt: skip
    agent = spawn_agent(tmux)
    tmux.run("rename-window", "-t", agent, "stash")
    wait_for(lambda: tmux.panes()[shell].command == "sh", 5, "shell")
    report = resync(project, idle_stash_s=-1, tmux=tmux)
    panes = tmux.panes()
    assert shell not in panes
    assert agent in panes
    assert len(report.purged_windows) == 1


def test_resync_in_a_repository_without_state_creates_nothing(
    tmux: Tmux, tmp_path: Path
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    report = resync(root, fix=True, tmux=tmux)
    assert (report.pruned, report.issues) == ((), ())
    assert sorted(p.name for p in root.iterdir()) == [".git"]
