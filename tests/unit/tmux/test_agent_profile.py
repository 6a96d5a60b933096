"""Agent names, process matching and prompt patterns (issue 15), no tmux needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.errors import ConfigError
from agent_doc.tmux.agent_profile import GENERIC_PROMPT
from agent_doc.tmux.agent_profile import AgentProfile
from agent_doc.tmux.agent_profile import agent_profile
from agent_doc.tmux.agent_profile import program_name


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["claude", "--model", "x"], "claude"),
        (["/usr/local/bin/codex"], "codex"),
        (["python3", "-u", "tools/my_agent.py"], "my_agent"),
        (["/bin/sh", "./agent.sh"], "agent"),
        (["env", "A=1", "node", "/opt/bin/claude"], "claude"),
        (["./run-agent"], "run-agent"),
        (["/bin/sh"], "sh"),
        ([], ""),
    ],
)
def test_program_name(argv: list[str], name: str) -> None:
    assert program_name(argv) == name


SCREENS = {
    "claude": "Welcome\n╭────╮\n│ ❯ \n╰────╯\n  ? for shortcuts\n",
    "codex": "codex ready\n\n› Ask Codex to do anything\n\n  ⏎ send\n",
    "generic": "my agent v1\n> \n",
}


def _profile(
    project: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> AgentProfile:
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", command)
    return agent_profile(project)


def test_default_patterns(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _profile(project, monkeypatch, "claude")
    codex = _profile(project, monkeypatch, "codex --full-auto")
    other = _profile(project, monkeypatch, "python3 my_agent.py")
    assert (claude.prompt_source, other.prompt_pattern) == ("default", GENERIC_PROMPT)
    assert claude.has_prompt(SCREENS["claude"])
    assert codex.has_prompt(SCREENS["codex"])
    assert other.has_prompt(SCREENS["generic"])
    assert not other.has_prompt("my agent v1\nworking...\n")
    assert not claude.has_prompt("line\n" + "output\n" * 10)


def test_configured_pattern_project_over_global(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    glob = tmp_path / "home" / ".config" / "agent-doc" / "config.toml"
    glob.parent.mkdir(parents=True)
    glob.write_text(
        '[agents.mine]\ncommand = "/opt/mine/bin/agent-tui"\n'
        'prompt_pattern = "^mine\\\\$ "\n',
        "utf-8",
    )
    profile = _profile(project, monkeypatch, "/opt/mine/bin/agent-tui --x")
    assert profile.prompt_pattern == "^mine\\$ "
    assert profile.has_prompt("hello\nmine$ ")
    assert profile.is_agent(["/opt/mine/bin/agent-tui"])
    assert profile.is_agent(["node", "/usr/bin/claude"])
    assert not profile.is_agent(["/bin/bash"])
    (project / ".agent-doc" / "config.toml").write_text(
        '[agents.agent-tui]\nprompt_pattern = "^READY"\n', "utf-8"
    )
    assert _profile(project, monkeypatch, "agent-tui").prompt_pattern == "^READY"
    (project / ".agent-doc" / "config.toml").write_text(
        "[agents.agent-tui]\nprompt_pattern = 3\n", "utf-8"
    )
    with pytest.raises(ConfigError, match="prompt_pattern must be a non-empty string"):
        _profile(project, monkeypatch, "agent-tui")
