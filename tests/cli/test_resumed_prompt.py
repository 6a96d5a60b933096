"""A resumed agent session gets the diff and excerpts, not the whole document.

Real CLI, real git; the agent is ``tests/data/fake_claude.py`` (it records
each prompt and argv, and can lose its session).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:status patch=replace -->
idle
<!-- /agent:status -->

<!-- agent:exchange patch=append -->
## User

What is 2 + 2? (the oldest question)
<!-- /agent:exchange -->
"""

ANSWER = "\n\n".join(f"Step {i} of the working." for i in range(8))
TURNS = [
    ("", f"### Re: sum\n\n{ANSWER}\n\n4."),
    ("And 3 + 3?", f"### Re: six\n\n{ANSWER}\n\n6."),
    ("And 4 + 4?", f"### Re: eight\n\n{ANSWER}\n\n8."),
]


@pytest.fixture
def agent_log(tmp_path: Path) -> Path:
    configure_fake_claude()
    return tmp_path / "agent-log.jsonl"


def type_question(doc: Path, question: str) -> None:
    text = doc.read_text()
    close = "<!-- /agent:exchange -->"
    doc.write_text(text.replace(close, f"{question}\n{close}"))


def calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def converse(project: Path, log: Path, env: dict[str, str] | None = None) -> Path:
    """Three turns on plan.md; returns the document."""
    doc = project / "plan.md"
    doc.write_text(DOC)
    for question, reply in TURNS:
        if question:
            type_question(doc, question)
        run_env = {"FAKE_CLAUDE_LOG": str(log), "FAKE_CLAUDE_REPLY": reply}
        result = cli(project, "run", "plan.md", "-v", env={**run_env, **(env or {})})
        assert result.returncode == 0, result.stderr
    return doc


def bare(text: str) -> str:
    return re.sub(r"agent:boundary:[0-9a-f-]+", "agent:boundary:ID", text)


def test_resumed_turn_sends_diff_and_tail_not_older_exchanges(
    project: Path, agent_log: Path
) -> None:
    doc = converse(project, agent_log)
    first, second, third = calls(agent_log)
    assert "<document>" in first["prompt"]  # the first turn: the whole document
    assert "--resume" not in first["argv"]
    for resumed in (second, third):
        assert "--resume" in resumed["argv"]
        assert "<document>" not in resumed["prompt"]
        assert "<excerpts>" in resumed["prompt"]
        assert "<diff>" in resumed["prompt"]
    prompt = str(third["prompt"])
    assert "And 4 + 4?" in prompt  # the change
    assert "### Re: six" in prompt  # the answer it follows (the tail)
    assert "What is 2 + 2?" not in prompt  # older exchanges are not resent
    assert "### Re: sum" not in prompt
    # The answers landed in order, each after its question.
    text = doc.read_text()
    assert text.index("And 3 + 3?") < text.index("6.") < text.index("And 4 + 4?")
    assert text.index("And 4 + 4?") < text.index("8.")


def test_resumed_prompt_stays_small_on_a_long_conversation(
    project: Path, agent_log: Path
) -> None:
    old = "".join(
        f"Question {i}?\n### Re: question {i}\n\n{ANSWER}\n\n" for i in range(300)
    )
    doc = project / "plan.md"
    doc.write_text(DOC.replace("What is 2 + 2? (the oldest question)\n", old))
    env = {"FAKE_CLAUDE_LOG": str(agent_log), "FAKE_CLAUDE_REPLY": "Noted."}
    assert cli(project, "run", "plan.md", env=env).returncode == 0
    type_question(doc, "And now?")
    assert cli(project, "run", "plan.md", env=env).returncode == 0
    full, resumed = calls(agent_log)
    size = len(doc.read_text())
    assert size > 50_000
    assert len(str(full["prompt"])) > size
    assert len(str(resumed["prompt"])) < 4_000  # the tail, not 300 turns


def test_verbose_run_prints_prompt_size_and_form(
    project: Path, agent_log: Path
) -> None:
    doc = converse(project, agent_log)
    type_question(doc, "And 5 + 5?")
    env = {"FAKE_CLAUDE_LOG": str(agent_log), "FAKE_CLAUDE_REPLY": "10."}
    result = cli(project, "run", "plan.md", "--verbose", env=env)
    assert result.returncode == 0, result.stderr
    sent = calls(agent_log)[-1]["prompt"]
    size = len(str(sent).encode())
    line = f"agent-doc: prompt: {size} bytes (~{(size + 3) // 4} tokens), resumed"
    assert line in result.stderr


def test_answers_land_the_same_with_the_full_prompt(
    project: Path, agent_log: Path, tmp_path: Path
) -> None:
    resumed = converse(project, agent_log).read_text()
    other = tmp_path / "other"
    other.mkdir()
    (other / ".agent-doc").mkdir()
    (other / ".agent-doc" / "config.toml").write_text('prompt = "full"\n')
    import subprocess

    subprocess.run(["git", "init", "-q", str(other)], check=True)
    for key, value in (("user.email", "t@example.invalid"), ("user.name", "T")):
        subprocess.run(["git", "-C", str(other), "config", key, value], check=True)
    full_log = tmp_path / "full-log.jsonl"
    full = converse(other, full_log).read_text()
    for call in calls(full_log):
        assert "<document>" in call["prompt"]  # prompt = "full": always all
        assert "<excerpts>" not in call["prompt"]
    assert bare(full) == bare(resumed)


@pytest.mark.parametrize("mode", ["lost", "lost-error"])
def test_lost_session_gets_the_whole_document_once(
    project: Path, agent_log: Path, mode: str
) -> None:
    doc = converse(project, agent_log)
    before = len(calls(agent_log))
    type_question(doc, "And 5 + 5?")
    env = {
        "FAKE_CLAUDE_LOG": str(agent_log),
        "FAKE_CLAUDE_REPLY": "### Re: ten\n\n10.",
        "FAKE_CLAUDE_MODE": mode,
    }
    result = cli(project, "run", "plan.md", "-v", env=env)
    assert result.returncode == 0, result.stderr
    tried, resent = calls(agent_log)[before:]
    assert "<excerpts>" in tried["prompt"]
    assert "--resume" in tried["argv"]
    assert "--resume" not in resent["argv"]  # a new session
    assert "<document>" in resent["prompt"]
    assert "What is 2 + 2?" in resent["prompt"]  # the whole conversation
    assert "sending the whole document in a new session" in result.stderr
    assert "the session was lost" in result.stderr
    text = doc.read_text()
    assert text.count("10.") == 1  # the answer landed once
    assert text.index("And 5 + 5?") < text.index("### Re: ten")
    new_id = f"resume: sess-{len(resent['prompt'])}"
    assert new_id in text  # the new session is the one resumed next


def test_reset_sends_the_whole_document_again(project: Path, agent_log: Path) -> None:
    doc = converse(project, agent_log)
    assert cli(project, "reset", "plan.md").returncode == 0
    type_question(doc, "And 5 + 5?")
    env = {"FAKE_CLAUDE_LOG": str(agent_log), "FAKE_CLAUDE_REPLY": "10."}
    assert cli(project, "run", "plan.md", env=env).returncode == 0
    last = calls(agent_log)[-1]
    assert "<document>" in last["prompt"]
    assert "What is 2 + 2?" in last["prompt"]


def test_preflight_reports_prompt_size_and_suggests_compact(
    project: Path, agent_log: Path
) -> None:
    doc = converse(project, agent_log)
    type_question(doc, "And 5 + 5?")
    data = json.loads(cli(project, "preflight", "plan.md", "--no-wait").stdout)
    assert data["prompt_mode"] == "resumed"
    dry = cli(project, "run", "plan.md", "--dry-run").stdout
    assert data["prompt_bytes"] == len(dry.encode())
    assert data["prompt_tokens_estimate"] == (data["prompt_bytes"] + 3) // 4
    assert data["suggest_compact"] is False
    (project / ".agent-doc" / "config.toml").write_text("compact_suggest_bytes = 500\n")
    data = json.loads(cli(project, "preflight", "plan.md", "--no-wait").stdout)
    assert data["suggest_compact"] is True
    assert "agent-doc compact plan.md" in data["compact_hint"]
