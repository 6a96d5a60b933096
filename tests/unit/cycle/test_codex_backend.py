"""The built-in ``codex`` backend's argv and its JSON-lines answer, and the
cause a failing claude puts in its JSON (the real CLIs: ``tests/agents/``)."""

from __future__ import annotations

import json

import pytest

from agent_doc.cycle.agents import build_invocation
from agent_doc.cycle.agents import lost_session
from agent_doc.cycle.agents import reported_error
from agent_doc.cycle.codex import codex_failure
from agent_doc.cycle.codex import parse_codex_reply
from agent_doc.errors import AgentError
from agent_doc.store.config import AgentCommand
from agent_doc.store.config import GlobalConfig


def lines(*events: dict[str, object]) -> str:
    return "".join(json.dumps(event) + "\n" for event in events)


def test_codex_argv_first_and_resumed() -> None:
    first = build_invocation("codex", GlobalConfig(), model="gpt-x", system_prompt="S")
    assert first.output == "codex"
    assert first.argv == (
        "codex", "exec", "--json", "--skip-git-repo-check", "-m", "gpt-x",
        "-c", 'sandbox_mode="workspace-write"', "-c", 'developer_instructions="S"', "-",
    )  # fmt: skip
    resumed = build_invocation("codex", GlobalConfig(), resume="T1", system_prompt="S")
    assert resumed.argv[-3:] == ("resume", "T1", "-")


def test_a_codex_table_replaces_the_builtin() -> None:
    config = GlobalConfig(agents={"codex": AgentCommand(command="my-codex")})
    invocation = build_invocation("codex", config)
    assert invocation.output == "claude"
    assert invocation.argv[0] == "my-codex"


def test_codex_answer_is_the_last_agent_message_and_the_thread() -> None:
    out = "warning: not json\n" + lines(
        {"type": "thread.started", "thread_id": "T1"},
        {"type": "item.completed", "item": {"type": "error", "message": "metadata"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "Look."}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "4."}},
        {"type": "turn.completed", "usage": {}},
    )
    assert parse_codex_reply(out, "codex") == ("4.", "T1")


@pytest.mark.parametrize(
    ("stdout", "needle"),
    [
        pytest.param("", "printed no JSON events", id="nothing"),
        pytest.param(
            lines({"type": "thread.started", "thread_id": "T"}),
            "empty result",
            id="no-message",
        ),
        pytest.param(
            lines({"type": "turn.failed", "error": {"message": "529 x"}}),
            "failed: 529 x",
            id="turn-failed",
        ),
    ],
)
def test_codex_without_an_answer_is_one_error(stdout: str, needle: str) -> None:
    with pytest.raises(AgentError, match=needle):
        parse_codex_reply(stdout, "codex")


def test_codex_failure_from_stderr_and_lost_thread() -> None:
    stderr = "WARNING: x\nError: thread/resume failed: no rollout found for T\n0: <unknown>\n"
    cause = codex_failure("", stderr)
    assert cause == "thread/resume failed: no rollout found for T"
    assert lost_session(cause)


def test_claude_cause_from_its_json() -> None:
    failed = {
        "is_error": True,
        "result": "API Error: 529 Overloaded.",
        "session_id": "s",
    }
    assert reported_error(json.dumps(failed)) == "API Error: 529 Overloaded."
    assert reported_error(json.dumps({**failed, "is_error": False})) is None
    assert reported_error("not json") is None
