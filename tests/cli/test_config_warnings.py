"""A typo'd config key is named once, with the closest known key; never fatal."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from agent_doc.store.config import load_global_config
from agent_doc.store.config import load_project_config
from agent_doc.store.config_keys import unknown_keys
from tests.cli_runner import cli

FAKE = Path(__file__).parent.parent / "data" / "fake_claude.py"

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
<!-- agent:exchange patch=append -->
What is 2 + 2?
<!-- /agent:exchange -->
"""


def test_run_names_each_typo_once_and_still_answers(project: Path) -> None:
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'defualt_agent = "fake"\n'
        "[agents.fake]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{FAKE}", "-p", "--output-format", "json"]\n'
        'prompt_patern = "^ready>"\n'
    )
    (project / "plan.md").write_text(DOC)
    result = cli(project, "run", "plan.md", env={"FAKE_CLAUDE_REPLY": "4."})
    assert result.returncode == 0, result.stderr
    assert "4." in (project / "plan.md").read_text()
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f"agent-doc: warning: {config}: unknown key 'defualt_agent' "
        "(did you mean 'default_agent'?); ignored",
        f"agent-doc: warning: {config}: unknown key 'prompt_patern' in "
        "[agents.fake] (did you mean 'prompt_pattern'?); ignored",
    ]


def test_project_config_typo(project: Path) -> None:
    path = project / ".agent-doc" / "config.toml"
    path.write_text('tmux_sesion = "work"\nagent_command = "claude"\n')
    result = cli(project, "session")
    assert result.returncode == 0
    assert result.stdout == "(none)\n"  # the typo'd key really is ignored
    assert result.stderr == (
        f"agent-doc: warning: {path}: unknown key 'tmux_sesion' "
        "(did you mean 'tmux_session'?); ignored\n"
    )


def test_known_keys_give_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'default_agent = "a"\nclaude_args = "--x"\n'
        '[agents.a]\ncommand = "a"\nargs = []\nprompt_pattern = ">"\n'
        'transport = "acp"\npermissions = "allow"\n'
        '[terminal]\ncommand = "xterm -e {tmux_command}"\n'
    )
    load_global_config(path)
    project = tmp_path / "p"
    (project / ".agent-doc").mkdir(parents=True)
    (project / ".agent-doc" / "config.toml").write_text(
        'tmux_session = "w"\nagent_command = "claude"\n'
        '[agents.claude]\nprompt_pattern = ">"\n[components.status]\nmode = "append"\n'
    )
    load_project_config(project)
    assert capsys.readouterr().err == ""


def test_unknown_keys_everywhere_without_a_guess_when_nothing_is_close() -> None:
    data = {"zzz": 1, "agents": {"a": {"comand": "x"}}, "terminal": {"cmd": "y"}}
    assert [(w, k) for w, k, _ in unknown_keys(data, project=False)] == [
        ("", "zzz"),
        ("[agents.a]", "comand"),
        ("[terminal]", "cmd"),
    ]
    # in a project, [agents.X] takes only prompt_pattern: command is global
    project = unknown_keys({"agents": {"a": {"command": "x"}}}, project=True)
    assert [(w, k) for w, k, _ in project] == [("[agents.a]", "command")]


def test_a_newer_key_still_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('default_agent = "a"\nsome_future_setting = true\n')
    assert load_global_config(path).default_agent == "a"
    err = capsys.readouterr().err
    assert err == (
        f"agent-doc: warning: {path}: unknown key 'some_future_setting'; ignored\n"
    )
    load_global_config(path)  # read again in the same process: not repeated
    assert capsys.readouterr().err == ""
