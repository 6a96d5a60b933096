"""Issue 15: prompt detection per agent, route's exit 75, one Enter per submit.

Stand-in agents (tests/data): ``noprompt_agent.py`` draws no prompt,
``echo_agent.py`` echoes its input before answering, ``exit_agent.py`` exits at
once with status 3. Each runs in a real pane of a private tmux server.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from agent_doc.errors import ConfigError
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from agent_doc.tmux.route import route
from agent_doc.tmux.submit import AgentNotReady
from tests.cli_runner import agent_doc

from .conftest import make_doc
from .conftest import wait_text

pytestmark = pytest.mark.tmux

DATA = Path(__file__).resolve().parents[1] / "data"


def _command(script: str, env: str = "") -> str:
    argv = [sys.executable, str(DATA / script)]
    return (f"env {env} " if env else "") + shlex.join(argv)


def _global_config(tmp_path: Path, text: str) -> None:
    path = tmp_path / "home" / ".config" / "agent-doc" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def test_route_to_agent_without_prompt_exits_75(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It waited 30 s, printed `starting`, exited 0 and sent nothing before."""
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", _command("noprompt_agent.py"))
    make_doc(project, "n.md")
    res = agent_doc("route", "n.md", "--prompt-timeout", "1.5", cwd=project)
    assert res.returncode == 75
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("agent-doc: no prompt seen after 1.5 s in pane %")
    assert "agent 'noprompt_agent' expects" in lines[0]
    assert "set [agents.noprompt_agent] prompt_pattern" in lines[0]
    pane = next(iter(registry.load(project).entries.values())).pane
    screen = wait_text(tmux, pane, "noprompt agent up")
    assert "heard:" not in screen


def test_configured_prompt_pattern_lets_route_send(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _global_config(tmp_path, '[agents.noprompt_agent]\nprompt_pattern = "^ready$"\n')
    command = _command("noprompt_agent.py", "NOPROMPT_SAY_READY=1")
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", command)
    doc = make_doc(project, "r.md")
    result = route(doc, prompt_timeout_s=15, tmux=tmux)
    assert (result.status, result.verified) == ("started", True)
    wait_text(tmux, result.pane or "", "heard: /agent-doc r.md")


def test_bad_prompt_pattern_is_one_config_error(
    tmux: Tmux, project: Path, tmp_path: Path
) -> None:
    _global_config(tmp_path, '[agents.fake_agent]\nprompt_pattern = "(unclosed"\n')
    doc = make_doc(project, "b.md")
    before = set(tmux.panes())
    with pytest.raises(ConfigError, match=r"prompt_pattern is not a valid regex"):
        route(doc, tmux=tmux)
    assert set(tmux.panes()) == before  # nothing was started
    assert registry.load(project).entries == {}


def test_agent_that_exits_at_once_is_reported(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", _command("exit_agent.py"))
    doc = make_doc(project, "x.md")
    with pytest.raises(AgentNotReady, match=r"the agent in pane %\d+ exited") as err:
        route(doc, prompt_timeout_s=10, tmux=tmux)
    assert err.value.exit_code == 75


def test_echoing_agent_gets_exactly_one_enter(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter was pressed 3–5 extra times when the agent echoed its input."""
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}",
        f"exec {_command('echo_agent.py')}",
    )[0]  # fmt: skip
    wait_text(tmux, pane, "echo agent ready")
    doc = make_doc(project, "e.md")
    claim(doc, pane=pane, tmux=tmux)
    result = route(doc, tmux=tmux)
    assert (result.status, result.verified) == ("sent", True)
    # Every Enter is one numbered line; tmux delivers keys in order, so any
    # extra Enter route pressed is answered before the marker.
    tmux.send_text(pane, "marker")
    screen = wait_text(tmux, pane, "line 2:", timeout=15)
    assert "line 1: '/agent-doc e.md'" in screen
    assert "line 2: 'marker'" in screen, screen
