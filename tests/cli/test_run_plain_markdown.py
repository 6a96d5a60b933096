"""``run`` on any markdown file (spec §7.1), not only on a session document.

Regression (issue 35, item 7): ``agent-doc run notes.md`` on a markdown file
without ``agent_doc_session`` exited 1 with "not a session document … create
one with agent-doc init notes.md" — and that hint failed too, since ``init``
refuses a file that exists. A real ``agent-doc run`` in a real git repository;
the agent is ``tests/data/fake_claude.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import cli

FAKE = Path(__file__).parent.parent / "data" / "fake_claude.py"


@pytest.fixture
def agent_log(tmp_path: Path) -> Path:
    """The fake claude as the configured default agent; its call log."""
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'default_agent = "fake"\n'
        "[agents.fake]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{FAKE}", "-p", "--output-format", "json"]\n'
    )
    return tmp_path / "agent-log.jsonl"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("# Notes\n\nWhat is 2 + 2?\n", id="no-frontmatter"),
        pytest.param(
            "---\ntitle: Notes\n---\n# Notes\n\nWhat is 2 + 2?\n", id="other-fm"
        ),
    ],
)
def test_run_answers_a_plain_markdown_file(
    project: Path, agent_log: Path, text: str
) -> None:
    doc = project / "notes.md"
    doc.write_text(text)
    env = {"FAKE_CLAUDE_LOG": str(agent_log), "FAKE_CLAUDE_REPLY": "4."}
    result = cli(project, "run", "notes.md", env=env)
    assert result.returncode == 0, result.stderr
    assert "not a session document" not in result.stderr
    answered = doc.read_text()
    assert answered.count("4.") == 1
    assert answered.index("What is 2 + 2?") < answered.index("4.")
    [call] = [json.loads(line) for line in agent_log.read_text().splitlines()]
    assert "What is 2 + 2?" in call["prompt"]
    assert git(project, "log", "--format=%s").startswith("agent-doc(notes): ")
    # the next turn sends only what is new, and answers once more (typed in
    # the exchange the first answer opened)
    close = "<!-- /agent:exchange -->"
    assert answered.count(close) == 1
    doc.write_text(answered.replace(close, "And 3 + 3?\n" + close))
    second = cli(project, "run", "notes.md", env={**env, "FAKE_CLAUDE_REPLY": "6."})
    assert second.returncode == 0, second.stderr
    final = doc.read_text()
    assert final.count("4.") == 1
    assert final.count("6.") == 1
    assert final.index("And 3 + 3?") < final.index("6.")


def test_no_hint_names_init_on_a_file_that_exists(project: Path) -> None:
    """``init`` refuses an existing file, so nothing may send a person there."""
    doc = project / "notes.md"
    doc.write_text("# Notes\n\nHello?\n")
    refused = cli(project, "init", "notes.md")
    assert refused.returncode != 0
    assert doc.read_text() == "# Notes\n\nHello?\n"
    dry = cli(project, "run", "notes.md", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "agent-doc init" not in dry.stderr
    assert "Hello?" in dry.stdout
