"""``[agents.NAME]`` tables of remote ACP agents: ``acp-ws`` and ``remote_root``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.cycle.acp_requests import local_path
from agent_doc.errors import ConfigError
from agent_doc.store.config import global_config_path
from agent_doc.store.config import load_global_config


def write_global(text: str) -> Path:
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_an_acp_ws_agent_is_read_with_its_token_file_beside_the_config() -> None:
    path = write_global(
        '[agents.far]\ntransport = "acp-ws"\nurl = "wss://agents.example.com/acp"\n'
        'token_file = "far-token"\nremote_root = "/srv/app"\n'
    )
    agent = load_global_config().agents["far"]
    assert agent.transport == "acp-ws"
    assert agent.speaks_acp
    assert agent.url == "wss://agents.example.com/acp"
    assert agent.token_file == path.parent / "far-token"
    assert agent.token_env is None
    assert agent.remote_root == "/srv/app"


def test_an_ssh_agent_is_plain_acp_with_a_remote_root() -> None:
    write_global(
        '[agents.box]\ncommand = "ssh"\nargs = ["-T", "devbox", "claude-agent-acp"]\n'
        'transport = "acp"\nremote_root = "/home/me/app"\n'
    )
    agent = load_global_config().agents["box"]
    assert (agent.command, agent.transport, agent.speaks_acp) == ("ssh", "acp", True)
    assert agent.remote_root == "/home/me/app"
    assert agent.url is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('transport = "acp-http"', 'transport must be one of "cli", "acp", "acp-ws"'),
        ('transport = "acp-ws"', 'transport = "acp-ws" needs url = "ws://host:port/'),
        ('transport = "acp-ws"\nurl = "http://127.0.0.1:9/"', "url must be ws://"),
        ('transport = "acp-ws"\nurl = ""', "url must be a non-empty string"),
        (
            'transport = "acp-ws"\nurl = "ws://127.0.0.1:9/?token=abc"',
            "must not carry credentials or a query string",
        ),
        (
            'transport = "acp-ws"\nurl = "ws://me:pw@127.0.0.1:9/"',
            "must not carry credentials or a query string",
        ),
        (
            'transport = "acp-ws"\nurl = "ws://10.0.0.5:9/"',
            "is not a loopback address: set token_file or token_env",
        ),
        (
            'transport = "acp-ws"\nurl = "wss://agents.example.com/"',
            "is not a loopback address",
        ),
        (
            'transport = "acp-ws"\nurl = "ws://127.0.0.1:9/"\n'
            'token_file = "t"\ntoken_env = "T"',
            "set token_file or token_env, not both",
        ),
        ('url = "ws://127.0.0.1:9/"', 'url is only read with transport = "acp-ws"'),
        (
            'transport = "acp"\ntoken_env = "T"',
            'token_env is only read with transport = "acp-ws"',
        ),
        ('transport = "acp"\nremote_root = "app"', "remote_root must be an absolute"),
        ('remote_root = "/srv/app"', 'remote_root needs transport = "acp" or "acp-ws"'),
        ('transport = "acp-ws"\nurl = 9', "'url' must be a string"),
    ],
)
def test_a_bad_remote_agent_table_is_one_clear_error(table: str, message: str) -> None:
    path = write_global(f"[agents.far]\n{table}\n")
    with pytest.raises(ConfigError) as err:
        load_global_config()
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "url", ["ws://127.0.0.1:9/acp", "ws://localhost:9/", "ws://[::1]:9/acp"]
)
def test_a_loopback_url_needs_no_token(url: str) -> None:
    write_global(f'[agents.near]\ntransport = "acp-ws"\nurl = "{url}"\n')
    assert load_global_config().agents["near"].url == url


def test_a_remote_agents_paths_under_its_root_map_to_the_project(
    tmp_path: Path,
) -> None:
    assert local_path("/srv/app/notes/a.md", "/srv/app", tmp_path) == (
        tmp_path / "notes" / "a.md"
    )
    assert local_path("/srv/app", "/srv/app", tmp_path) == tmp_path
    assert local_path("/srv/application/x", "/srv/app", tmp_path) == Path(
        "/srv/application/x"
    )
    assert local_path("/etc/passwd", "/srv/app", tmp_path) == Path("/etc/passwd")
    assert local_path(str(tmp_path / "a.md"), None, tmp_path) == tmp_path / "a.md"
