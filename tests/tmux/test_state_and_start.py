"""Issue 15: status knows script agents, reads well; start applies claude_args."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_state import EXITED
from agent_doc.tmux.agent_state import agent_states
from agent_doc.tmux.claim import claim
from tests.cli_runner import agent_doc

from .conftest import make_doc
from .conftest import wait_for
from .conftest import wait_text

pytestmark = pytest.mark.tmux

DATA = Path(__file__).resolve().parents[1] / "data"
CLI = f"{shlex.quote(sys.executable)} -m agent_doc.cli.entry"


def _shell(tmux: Tmux, cwd: Path) -> str:
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(cwd), "/bin/sh"
    )[0]
    tmux.send_text(pane, "PS1='$ '; clear")
    wait_for(lambda: tmux.capture(pane).strip() == "$", 10, "shell prompt")
    return pane


def _state(project: Path) -> str:
    return agent_states(project)[0].state


def test_script_agent_is_running_until_it_returns_to_the_shell(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`status` called a live script agent `exited` (tmux shows it as `sh`)."""
    script = DATA / "script_agent.sh"
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", f"sh {script}")
    pane = _shell(tmux, project)
    tmux.send_text(pane, f"sh {script}")
    wait_text(tmux, pane, "script agent ready")
    assert tmux.panes()[pane].command == "sh"
    doc = make_doc(project, "s.md")
    claim(doc, pane=pane, tmux=tmux)
    assert _state(project) != EXITED
    res = agent_doc("status", cwd=project)
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"s.md  {pane:<5} {_state(project).replace('_', ' ')}\n"
    tmux.send_keys(pane, "C-d")  # EOF: the agent ends, the shell is back
    wait_for(lambda: _state(project) == EXITED, 10, "exited once back at the shell")
    assert agent_doc("status", cwd=project).stdout == f"s.md  {pane:<5} exited\n"


def test_status_without_documents_says_so(tmux: Tmux, project: Path) -> None:
    res = agent_doc("status", cwd=project)
    assert (res.returncode, res.stdout) == (0, "")
    assert res.stderr == (
        "no document is bound to a pane (agent-doc claim FILE binds one)\n"
    )


CLAUDE_STANDIN = """#!/bin/sh
echo "claude argv: $*"
exec cat >/dev/null
"""


@pytest.mark.parametrize(
    ("front", "config", "expected"),
    [
        ("claude_args: --from-fm\n", True, "--from-fm --x"),
        ("", True, "--from-config --two --x"),
        ("", False, "--from-env --x"),
    ],
    ids=["frontmatter", "global-config", "env"],
)
def test_start_applies_claude_args_precedence(
    tmux: Tmux, project: Path, tmp_path: Path, front: str, config: bool, expected: str
) -> None:
    """`start` ignored claude_args; §6.1: frontmatter > global config > env."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(CLAUDE_STANDIN, "utf-8")
    (bin_dir / "claude").chmod(0o755)
    if config:
        cfg = tmp_path / "home" / ".config" / "agent-doc" / "config.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text('claude_args = "--from-config --two"\n', "utf-8")
    doc = project / "c.md"
    doc.write_text(f"---\nagent_doc_session: s-1\n{front}---\n# c\n", "utf-8")
    pane = _shell(tmux, project)
    tmux.send_text(
        pane,
        f"PATH={shlex.quote(str(bin_dir))}:$PATH AGENT_DOC_AGENT_COMMAND='claude --x'"
        f" AGENT_DOC_CLAUDE_ARGS=--from-env {CLI} start c.md",
    )
    screen = wait_text(tmux, pane, "claude argv:")
    assert f"claude argv: {expected}\n" in screen + "\n", screen
