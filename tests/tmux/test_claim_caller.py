"""Issue 15: claim never binds the editor's or the calling shell's pane.

A "shell" is a real ``/bin/sh`` pane of the private server where the test types
``agent-doc claim`` as a person would; the "editor" is a pane the caller names
as its own (``client_pane``, what the editor clients send). The agent that
calls claim itself (spec §7.10, the SKILL flow) still binds its own pane.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from agent_doc.errors import TmuxError
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from tests.cli_runner import agent_doc

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for
from .conftest import wait_text

pytestmark = pytest.mark.tmux

CLI = f"{shlex.quote(sys.executable)} -m agent_doc.cli.entry"


def _bound(project: Path) -> dict[str, str]:
    return {e.file: e.pane for e in registry.load(project).entries.values()}


def _shell(tmux: Tmux, project: Path) -> str:
    """A single-pane window running a shell in ``project``."""
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(project), "/bin/sh"
    )[0]
    tmux.send_text(pane, "PS1='$ '; clear")
    wait_for(lambda: tmux.capture(pane).strip() == "$", 10, "shell prompt")
    return pane


def test_outside_tmux_position_claim_is_an_error(tmux: Tmux, project: Path) -> None:
    """From a shell outside tmux, `claim --position right` bound %0 before."""
    doc = make_doc(project, "f.md", session="", body="text\n")
    res = agent_doc("claim", "f.md", "--position", "right", cwd=project)
    assert res.returncode == 1
    assert res.stderr == "agent-doc: not inside tmux: give --pane %N or --window W\n"
    assert res.stdout == ""
    assert doc.read_text("utf-8") == "text\n"
    assert _bound(project) == {}


def test_position_in_single_pane_editor_window_splits(
    tmux: Tmux, project: Path
) -> None:
    """`:AgentDocClaim right` bound the editor's own pane before."""
    editor = _shell(tmux, project)
    doc = make_doc(project, "d.md")
    result = claim(doc, position="right", client_pane=editor, tmux=tmux)
    assert result.provisioned
    assert result.pane != editor
    panes = tmux.panes()
    assert panes[result.pane].window_id == panes[editor].window_id
    assert panes[result.pane].left > panes[editor].left
    assert _bound(project) == {"d.md": result.pane}
    wait_text(tmux, result.pane, "fake-agent ready")
    left = claim(doc, position="left", client_pane=editor, tmux=tmux)
    panes = tmux.panes()
    assert left.pane not in (editor, result.pane)
    assert panes[left.pane].left < panes[editor].left
    with pytest.raises(TmuxError, match=f"pane {editor} runs your editor or shell"):
        claim(doc, pane=editor, client_pane=editor, tmux=tmux)
    assert _bound(project) == {"d.md": left.pane}


def test_position_picks_the_agent_pane_beside_the_editor(
    tmux: Tmux, project: Path
) -> None:
    editor = _shell(tmux, project)
    agent = tmux.split(editor, f"exec {shlex.join(_agent_argv())}")
    wait_text(tmux, agent, "❯")
    doc = make_doc(project, "p.md")
    result = claim(doc, position="right", client_pane=editor, tmux=tmux)
    assert (result.pane, result.provisioned) == (agent, False)
    # The editor is the left edge: "left" splits a new pane off it instead.
    other = make_doc(project, "q.md")
    left = claim(other, position="left", client_pane=editor, tmux=tmux)
    assert left.provisioned
    assert left.pane not in (editor, agent)


def _wait_status(tmux: Tmux, pane: str) -> str:
    """The shell's screen once ``echo status=$?`` printed a number."""
    seen = [""]

    def done() -> bool:
        seen[0] = tmux.capture(pane)
        return re.search(r"^status=\d+$", seen[0], re.MULTILINE) is not None

    wait_for(done, 20, "the command's status")
    return seen[0]


def _agent_argv() -> list[str]:
    import os

    return shlex.split(os.environ["AGENT_DOC_AGENT_COMMAND"])


def test_claim_typed_in_a_shell_never_binds_the_shell(
    tmux: Tmux, project: Path
) -> None:
    shell = _shell(tmux, project)
    make_doc(project, "s.md")
    tmux.send_text(shell, f"{CLI} claim s.md; echo status=$?")
    screen = _wait_status(tmux, shell)
    assert "status=0" in screen, screen
    bound = _bound(project)["s.md"]
    assert bound != shell
    assert f"Claimed s.md for pane {bound} (new pane)" in screen
    panes = tmux.panes()
    assert panes[bound].window_id == panes[shell].window_id
    wait_text(tmux, bound, "fake-agent ready")


def test_agent_running_claim_binds_its_own_pane(tmux: Tmux, project: Path) -> None:
    """The SKILL flow: the agent itself runs `agent-doc claim FILE` (§7.10)."""
    agent = spawn_agent(tmux)
    make_doc(project, "mine.md")
    tmux.send_text(agent, f"!cd {shlex.quote(str(project))} && {CLI} claim mine.md")
    wait_text(tmux, agent, "ran: 0")
    assert _bound(project) == {"mine.md": agent}


def test_route_never_types_into_the_callers_own_pane(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A binding to the editor's pane (left by an older claim) typed into it."""
    from agent_doc.tmux.bindings import bind_pane
    from agent_doc.tmux.bindings import load_doc
    from agent_doc.tmux.route import route

    editor = _shell(tmux, project)
    doc = make_doc(project, "old.md")
    with registry.locked(project) as reg:
        bind_pane(reg, load_doc(doc), editor, tmux.panes())
    monkeypatch.setenv("TMUX_PANE", editor)
    result = route(doc, prompt_timeout_s=15, tmux=tmux)
    assert result.status == "started"
    assert result.pane != editor
    wait_text(tmux, result.pane or "", "done: old.md")
    assert "/agent-doc" not in tmux.capture(editor)
    assert _bound(project) == {"old.md": result.pane}
