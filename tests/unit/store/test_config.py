from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.errors import ConfigError
from agent_doc.store.config import global_config_path
from agent_doc.store.config import load_global_config
from agent_doc.store.config import load_project_config
from agent_doc.store.config import resolve_claude_args
from agent_doc.store.config import set_project_value


def write_global(text: str) -> Path:
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_missing_global_config_gives_defaults() -> None:
    config = load_global_config()
    assert config.default_agent is None
    assert config.agents == {}
    assert config.path is None


def test_global_config_fields_are_read() -> None:
    write_global(
        'default_agent = "mine"\nclaude_args = "--verbose"\n'
        '[agents.mine]\ncommand = "/bin/mine"\nargs = ["-x", "--json"]\n'
        '[terminal]\ncommand = "xterm -e {tmux_command}"\n'
    )
    config = load_global_config()
    assert config.default_agent == "mine"
    assert config.agents["mine"].command == "/bin/mine"
    assert config.agents["mine"].args == ("-x", "--json")
    assert config.terminal_command == "xterm -e {tmux_command}"


def test_invalid_toml_names_file_and_line() -> None:
    path = write_global('default_agent = "a"\nbroken = \n')
    with pytest.raises(ConfigError) as err:
        load_global_config()
    assert str(path) in str(err.value)
    assert "line 2" in str(err.value)


def test_wrong_type_is_a_clear_error() -> None:
    write_global("default_agent = 3\n")
    with pytest.raises(ConfigError, match="default_agent"):
        load_global_config()


def test_claude_args_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_DOC_CLAUDE_ARGS", "--from-env")
    write_global('claude_args = "--from-config --two"\n')
    config = load_global_config()
    assert resolve_claude_args("--from-fm", config) == ["--from-fm"]
    assert resolve_claude_args(None, config) == ["--from-config", "--two"]
    assert resolve_claude_args(None, load_global_config(Path("/nonexistent"))) == [
        "--from-env"
    ]


def test_project_config_set_value_keeps_other_lines(tmp_path: Path) -> None:
    (tmp_path / ".agent-doc").mkdir()
    cfg = tmp_path / ".agent-doc" / "config.toml"
    cfg.write_text(
        '# my notes\ntmux_session = "old"\n\n[components.status]\nmode = "append"\n'
    )
    set_project_value(tmp_path, "tmux_session", "new")
    text = cfg.read_text()
    assert (
        text
        == '# my notes\ntmux_session = "new"\n\n[components.status]\nmode = "append"\n'
    )
    assert load_project_config(tmp_path).tmux_session == "new"
    set_project_value(tmp_path, "agent_command", 'a "b"')
    assert load_project_config(tmp_path).agent_command == 'a "b"'
    assert load_project_config(tmp_path).raw["components"]["status"]["mode"] == "append"
