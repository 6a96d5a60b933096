"""An ACP agent that resumes its session gets the diff and excerpts too.

``agent-doc run`` drives the stand-in ACP agent (``tests/data/acp_agent.py``,
real JSON-RPC over stdio), a new process every turn: the second turn loads
the session the first one stored as ``resume`` and is sent the resumed
prompt. A stand-in that cannot load sessions opens a new one, and that
session is sent the whole document.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC
from tests.acp_standin import configure_standin
from tests.cli_runner import cli

FILLER = "\n\n".join(f"Earlier working, paragraph {i}." for i in range(200))


def prompts(log: Path) -> list[str]:
    calls = [json.loads(line) for line in log.read_text().splitlines() if line]
    return [str(c["prompt"]) for c in calls if c["method"] == "session/prompt"]


def two_turns(
    project: Path,
    tmp_path: Path,
    behaviour: dict[str, str],
    seen: list[str] | None = None,
) -> Path:
    """A first turn, a typed question, a second turn; returns the agent's log
    (and puts the second ``run -v``'s stderr in ``seen``)."""
    log = tmp_path / "acp-log.jsonl"
    configure_standin(tmp_path, {"ACP_AGENT_LOG": str(log), **behaviour})
    doc = project / "plan.md"
    doc.write_text(SESSION_DOC.replace("Notes:", f"Notes:\n\n{FILLER}"))
    first = cli(project, "run", "plan.md", "-v")
    assert first.returncode == 0, first.stderr
    assert "resume: acp-" in doc.read_text()
    doc.write_text(
        doc.read_text().replace(
            "<!-- /agent:exchange -->", "And 3 + 3?\n<!-- /agent:exchange -->"
        )
    )
    second = cli(project, "run", "plan.md", "-v")
    assert second.returncode == 0, second.stderr
    if seen is not None:
        seen.append(second.stderr)
    return log


def test_a_loaded_acp_session_gets_the_resumed_prompt(
    project: Path, tmp_path: Path
) -> None:
    log = two_turns(project, tmp_path, {})

    first, second = prompts(log)
    assert "<document>" in first
    assert "Earlier working, paragraph 199." in first
    assert "<document>" not in second
    assert "<excerpts>" in second
    assert "And 3 + 3?" in second
    assert "Earlier working, paragraph 199." not in second
    assert len(second) < len(first) / 2


@pytest.mark.parametrize("prompt_config", ["", 'prompt = "full"\n'])
def test_a_new_acp_session_or_full_config_gets_the_whole_document(
    project: Path, tmp_path: Path, prompt_config: str
) -> None:
    behaviour = {} if prompt_config else {"ACP_AGENT_NO_LOAD": "1"}
    if prompt_config:
        (project / ".agent-doc" / "config.toml").write_text(prompt_config)
    log = two_turns(project, tmp_path, behaviour)

    second = prompts(log)[1]
    assert "<document>" in second
    assert "Earlier working, paragraph 199." in second
    assert "And 3 + 3?" in second
    answers = (project / "plan.md").read_text().count("Hello from ACP.")
    assert answers == 2


def test_run_v_says_an_agent_that_cannot_load_sessions_is_not_a_lost_session(
    project: Path, tmp_path: Path
) -> None:
    """Every turn of such an agent is sent in full: -v says why, not "lost"."""
    seen: list[str] = []
    two_turns(project, tmp_path, {"ACP_AGENT_NO_LOAD": "1"}, seen)
    assert "the session was lost" not in seen[0]
    assert (
        "full: the agent cannot load sessions, a new one gets the whole document"
        in seen[0]
    ), seen[0]
