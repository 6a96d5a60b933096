"""session / session set, status --json and terminal through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from agent_doc.tmux.terminal import session_set
from agent_doc.tmux.terminal import session_show

from .conftest import make_doc
from .conftest import spawn_agent

pytestmark = pytest.mark.tmux


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        capture_output=True, text=True, cwd=cwd, env=dict(os.environ), timeout=60,
    )  # fmt: skip


def test_session_set_moves_agent_windows(tmux: Tmux, project: Path) -> None:
    assert session_show(project) is None
    session_set(project, "main", tmux=tmux)
    pane = spawn_agent(tmux)
    tmux.run("rename-window", "-t", pane, "agent-doc")
    tmux.run("new-session", "-d", "-s", "work", "/bin/sh")
    moved = session_set(project, "work", tmux=tmux)
    assert len(moved) == 1
    assert tmux.panes()[pane].session == "work"
    assert _cli(project, "session").stdout == "work\n"


def test_status_json_lists_documents(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "st.md")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane, tmux=tmux)
    out = _cli(project, "status", "--json")
    assert out.returncode == 0, out.stderr
    [item] = json.loads(out.stdout)
    assert (item["file"], item["pane"], item["state"]) == ("st.md", pane, "starting")


def test_terminal_without_config_is_one_clear_line(tmux: Tmux, project: Path) -> None:
    os.environ.pop("TERMINAL", None)
    out = _cli(project, "terminal", "--session", "main")
    assert out.returncode == 1
    assert out.stderr.startswith("agent-doc: no terminal configured")
