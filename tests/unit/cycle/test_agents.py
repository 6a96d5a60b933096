from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_doc.cycle.agents import CLAUDE_BASE_ARGS
from agent_doc.cycle.agents import build_invocation
from agent_doc.cycle.agents import resolve_agent_name
from agent_doc.cycle.agents import send
from agent_doc.errors import AgentError
from agent_doc.store.config import AgentCommand
from agent_doc.store.config import GlobalConfig

FAKE = Path(__file__).parents[2] / "data" / "fake_claude.py"


def fake_config() -> GlobalConfig:
    return GlobalConfig(
        agents={
            "fake": AgentCommand(
                command=sys.executable, args=(str(FAKE), *CLAUDE_BASE_ARGS)
            )
        }
    )


def test_resolution_order() -> None:
    config = GlobalConfig(default_agent="cfg")
    assert resolve_agent_name("cli", "fm", config) == "cli"
    assert resolve_agent_name(None, "fm", config) == "fm"
    assert resolve_agent_name(None, None, config) == "cfg"
    assert resolve_agent_name(None, None, GlobalConfig()) == "claude"


def test_claude_argv_is_exact() -> None:
    inv = build_invocation(
        "claude", GlobalConfig(), claude_args=["--dangerously-skip-permissions"]
    )
    assert inv.argv[:7] == (
        "claude",
        "--dangerously-skip-permissions",
        "-p",
        "--output-format",
        "json",
        "--permission-mode",
        "acceptEdits",
    )
    assert inv.argv[7:9] == ("--continue", "--fork-session")
    assert inv.argv[-2] == "--append-system-prompt"
    resumed = build_invocation("claude", GlobalConfig(), resume="abc", model="opus")
    assert "--resume" in resumed.argv
    assert resumed.argv[resumed.argv.index("--resume") + 1] == "abc"
    assert "--continue" not in resumed.argv
    assert resumed.argv[resumed.argv.index("--model") + 1] == "opus"


def test_unknown_agent_is_an_error() -> None:
    with pytest.raises(AgentError, match="unknown agent 'nope'"):
        build_invocation("nope", GlobalConfig())


def test_send_parses_result_and_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    monkeypatch.setenv("FAKE_CLAUDE_REPLY", "Hello there.")
    monkeypatch.setenv("CLAUDECODE", "1")
    reply = send(build_invocation("fake", fake_config(), resume="r1"), "the prompt")
    assert reply.text == "Hello there."
    assert reply.session_id == "r1"
    record = json.loads(log.read_text())
    assert record["prompt"] == "the prompt"
    assert "--resume" in record["argv"]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        pytest.param("error", "reported an error", id="is-error"),
        pytest.param("badjson", "invalid JSON", id="bad-json"),
        pytest.param(
            "exit1", "exited with status 1: fake claude: simulated failure", id="exit"
        ),
        pytest.param("empty", "empty result", id="empty"),
    ],
)
def test_send_failures_are_clear(
    mode: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    with pytest.raises(AgentError, match=message):
        send(build_invocation("fake", fake_config()), "p")


def test_hang_is_killed_after_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "hang")
    with pytest.raises(AgentError, match=r"timed out after 0.5 s"):
        send(build_invocation("fake", fake_config()), "p", timeout=0.5)


def test_missing_binary_is_clear() -> None:
    config = GlobalConfig(
        agents={"ghost": AgentCommand(command="no-such-agent-binary-xyz")}
    )
    with pytest.raises(AgentError, match="not found on PATH"):
        send(build_invocation("ghost", config), "p")
