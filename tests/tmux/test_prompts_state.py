"""Permission prompts (pure parse + live answer) and agent lifecycle states."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_state import EXITED
from agent_doc.tmux.agent_state import NEEDS_INPUT
from agent_doc.tmux.agent_state import RUNNING
from agent_doc.tmux.agent_state import STALE
from agent_doc.tmux.agent_state import STARTING
from agent_doc.tmux.agent_state import AgentStateConfig
from agent_doc.tmux.agent_state import agent_states
from agent_doc.tmux.agent_state import infer
from agent_doc.tmux.claim import claim
from agent_doc.tmux.prompts import answer_prompt
from agent_doc.tmux.prompts import parse_prompt
from agent_doc.tmux.prompts import prompt_all
from agent_doc.tmux.prompts import prompt_state

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for
from .conftest import wait_text

CASE_25 = (
    "Bash command\n\nDo you want to proceed?\n  1. Yes\n"
    "\x1b[1m❯ 2. Yes, and don't ask again for: npm test\x1b[0m\n  3. No\n\n"
    "Esc to cancel · ctrl+e to explain\n"
)


def test_parse_case_25() -> None:
    info = parse_prompt(CASE_25)
    assert info.active
    assert info.question == "Do you want to proceed?"
    assert [(o.index, o.label) for o in info.options] == [
        (1, "Yes"), (2, "Yes, and don't ask again for: npm test"), (3, "No"),
    ]  # fmt: skip
    assert info.selected == 1


def test_parse_bracket_variant_and_inactive() -> None:
    text = "Allow this?\n> [1] Yes\n  [2] No\nNo to cancel\n"
    info = parse_prompt(text)
    assert info.active
    assert info.question == "Allow this?"
    assert [o.label for o in info.options] == ["Yes", "No"]
    assert info.selected == 0
    assert parse_prompt("just some output\n❯ ").to_json() == {"active": False}
    assert parse_prompt("Esc to cancel\n").to_json() == {"active": False}


def test_infer_transitions_pure() -> None:
    cfg = AgentStateConfig(idle_s=1.0, stale_s=2.0)
    o = infer(None, "h0", alive=True, permission=False, now=0.0, config=cfg)
    assert o.state == STARTING
    o = infer(o, "h1", alive=True, permission=False, now=0.5, config=cfg)
    assert o.state == RUNNING
    o = infer(o, "h1", alive=True, permission=False, now=1.0, config=cfg)
    assert o.state == RUNNING
    o = infer(o, "h1", alive=True, permission=False, now=1.6, config=cfg)
    assert (o.state, o.since) == (NEEDS_INPUT, 1.6)
    o = infer(o, "h1", alive=True, permission=False, now=3.6, config=cfg)
    assert o.state == STALE
    o = infer(o, "h2", alive=True, permission=False, now=4.0, config=cfg)
    assert o.state == RUNNING
    o = infer(o, "h3", alive=True, permission=True, now=4.1, config=cfg)
    assert o.state == NEEDS_INPUT
    o = infer(o, "h3", alive=False, permission=False, now=5.0, config=cfg)
    assert o.state == EXITED


@pytest.mark.tmux
def test_answer_live_prompt(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "p.md")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane, tmux=tmux)
    assert prompt_state(doc, tmux=tmux).to_json() == {"active": False}
    tmux.send_text(pane, "ask")
    wait_text(tmux, pane, "Esc to cancel")
    info = prompt_state(doc, tmux=tmux)
    assert info.question == "Do you want to proceed?"
    assert info.selected == 0
    assert len(info.options) == 3
    entries = prompt_all(project, tmux=tmux)
    assert entries[0]["file"] == "p.md"
    assert entries[0]["active"] is True
    answer_prompt(doc, 3, tmux=tmux, step_s=0.05)
    wait_text(tmux, pane, "answered: 3 No")


@pytest.mark.tmux
def test_states_live_with_short_timeouts(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "s.md")
    pane = spawn_agent(tmux, env="FAKE_AGENT_BURSTS=30 FAKE_AGENT_DELAY=0.1")
    tmux.keep_on_exit(pane)
    claim(doc, pane=pane, tmux=tmux)
    cfg = AgentStateConfig(idle_s=0.6, stale_s=0.8)
    store: dict[str, object] = {}

    def state() -> str:
        return agent_states(project, tmux=tmux, config=cfg, store=store)[0].state  # type: ignore[arg-type]

    assert state() == STARTING
    tmux.send_text(pane, "/agent-doc s.md")
    wait_for(lambda: state() == RUNNING, 5, "running")
    wait_text(tmux, pane, "done: s.md", timeout=10)
    wait_for(lambda: state() == NEEDS_INPUT, 5, "needs input")
    wait_for(lambda: state() == STALE, 5, "stale")
    tmux.send_text(pane, "ask")
    wait_text(tmux, pane, "Esc to cancel")
    status = agent_states(project, tmux=tmux, config=cfg, store=store)[0]  # type: ignore[arg-type]
    assert status.waiting_permission
    assert status.state == NEEDS_INPUT
    tmux.send_keys(pane, "Escape")
    wait_text(tmux, pane, "cancelled")
    tmux.send_text(pane, "/exit 4")
    wait_for(lambda: state() == EXITED, 5, "exited")

    def exit_code() -> int | None:
        return agent_states(project, tmux=tmux, config=cfg, store=store)[0].exit_code  # type: ignore[arg-type]

    # tmux marks the pane dead on pty EOF before it records the exit status,
    # and tmux 3.3a sometimes never records it (pane_dead_status stays empty):
    # the code is best effort, but when tmux has one it must be the agent's.
    deadline = time.monotonic() + 3
    while exit_code() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert exit_code() in (4, None)
