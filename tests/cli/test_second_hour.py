"""A newcomer's second hour through the real CLI: patch, convert, compact,
doctor, upgrade (issue 39)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import cli

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?

### Re: the sum

It is 4.
<!-- /agent:exchange -->
"""


def test_text_patched_into_the_exchange_starts_a_paragraph(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(project, "patch", "plan.md", "exchange", stdin="And 3 + 3?\n")
    assert result.returncode == 0, result.stderr
    assert "It is 4.\n\nAnd 3 + 3?\n<!-- /agent:exchange -->" in doc.read_text()


def _turns(count: int) -> str:
    turns = "".join(
        f"## User\n\nQ{n}?\n\n### Re: Q{n}\n\nA{n}.\n\n" for n in range(1, count + 1)
    )
    return DOC.split("## User")[0] + turns + "<!-- /agent:exchange -->\n"


def test_compact_reports_the_turns_there_are(project: Path) -> None:
    (project / "plan.md").write_text(_turns(4))
    result = cli(project, "compact", "plan.md", "--keep", "5", "--json", "--no-git")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["moved"], report["kept"]) == (0, 4)
    text = cli(project, "compact", "plan.md", "--keep", "5", "--no-git")
    assert "4 turns, none beyond those kept" in text.stderr
    moved = cli(project, "compact", "plan.md", "--keep", "3", "--no-git")
    assert "moved 1 turn of plan.md" in moved.stderr, moved.stderr


def test_upgrade_from_a_checkout_says_git_pull(tmp_path: Path) -> None:
    """These tests run agent-doc from its git checkout (an editable install)."""
    checkout = Path(__file__).resolve().parents[2]
    assert (checkout / ".git").exists()
    env = {"AGENT_DOC_INDEX_URL": "http://127.0.0.1:9/json"}  # never asked
    result = cli(tmp_path, "upgrade", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"agent-doc runs from the git checkout {checkout}: pip does not upgrade "
        f"it; update it with git -C {checkout} pull (and reinstall with "
        f"pip install -e {checkout} if its dependencies changed)\n"
    )
    as_json = json.loads(cli(tmp_path, "upgrade", "--json", env=env).stdout)
    assert as_json == {
        "checkout": str(checkout),
        "command": ["git", "-C", str(checkout), "pull"],
    }


def test_convert_to_inline_says_what_is_lost_before_doing_it(project: Path) -> None:
    created = cli(project, "init", "notes.md")
    assert created.returncode == 0, created.stderr
    doc = project / "notes.md"
    before = doc.read_text()
    assert "<!-- agent:status" in before
    refused = cli(project, "convert", "notes.md", "--to", "inline")
    assert refused.returncode == 1
    assert refused.stderr == (
        "agent-doc: converting notes.md to inline drops the status component "
        "(its text stays, no longer a component) and the exchange's settings "
        "(patch=append); converting back does not restore them (it adds a "
        "## Exchange heading): pass --force to convert anyway\n"
    )
    assert doc.read_text() == before
    forced = cli(project, "convert", "notes.md", "--to", "inline", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "agent_doc_format: inline" in doc.read_text()
    assert "<!-- agent:" not in doc.read_text()
    plain = cli(project, "convert", "notes.md", "--to", "inline")  # nothing to lose
    assert plain.returncode == 0, plain.stderr
