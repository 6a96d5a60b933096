"""``outline``, ``convert`` and ``dedupe`` through the real console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc


def test_outline_text_and_json(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("---\na: 1\n---\nintro\n# Top\n\nbody\n## Sub\n```\n# not\n```\n")
    out = json.loads(agent_doc("outline", "doc.md", "--json", cwd=project).stdout)
    assert [(s["heading"], s["depth"]) for s in out] == [
        ("(preamble)", 0),
        ("Top", 1),
        ("Sub", 2),
    ]
    assert out[1]["line"] == 5
    res = agent_doc("outline", "doc.md", cwd=project)
    assert res.returncode == 0
    assert "Top" in res.stdout
    assert "# not" not in res.stdout


def test_convert_inline_to_template_and_back(project: Path) -> None:
    doc = project / "doc.md"
    inline = "---\nagent_doc_format: inline\n---\n\n## User\n\nHi\n"
    doc.write_text(inline)
    res = agent_doc("convert", "doc.md", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["changed"] is True
    text = doc.read_text()
    assert "agent_doc_format: template" in text
    assert "<!-- agent:exchange -->\n## User\n\nHi\n<!-- /agent:exchange -->" in text
    assert StateStore(project).load_snapshot(doc) is None  # "Hi" was never sent
    assert "+Hi\n" in agent_doc("diff", "doc.md", cwd=project).stdout
    res = agent_doc("convert", "doc.md", "--to", "inline", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "<!-- agent:exchange" not in doc.read_text()
    assert "agent_doc_format: inline" in doc.read_text()


INLINE_SENT = """---
agent_doc_format: inline
---

## User

What is 6 times 7?

## Assistant

42.

## User

"""


@pytest.mark.parametrize("to", ["template", "inline"])
def test_convert_keeps_the_unanswered_last_question_in_the_next_diff(
    project: Path, to: str
) -> None:
    """Regression: ``convert`` stored the converted document as the snapshot,
    so the last question, typed but not yet sent, was never sent."""
    doc = project / "doc.md"
    doc.write_text(INLINE_SENT)
    StateStore(project).save_snapshot(doc, INLINE_SENT)  # the agent saw this
    if to == "inline":  # template → inline: convert the sent state first
        assert agent_doc("convert", "doc.md", cwd=project).returncode == 0
    with doc.open("a") as typing:
        typing.write("And 6 times 8?\n")  # typed, not sent yet
    res = agent_doc("convert", "doc.md", "--to", to, cwd=project)
    assert res.returncode == 0, res.stderr
    diff = agent_doc("diff", "doc.md", cwd=project)
    assert diff.returncode == 0, diff.stderr
    changed = [ln for ln in diff.stdout.splitlines() if ln[:1] in "+-"]
    assert changed == ["--- snapshot", "+++ document", "+And 6 times 8?"]


def test_convert_refuses_a_bad_target(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("## User\n\nHi\n")
    res = agent_doc("convert", "doc.md", "--to", "yaml", cwd=project)
    assert res.returncode == 2  # a usage error: --to takes template or inline
    assert "'yaml' is not one of 'template', 'inline'" in res.stderr
    assert doc.read_text() == "## User\n\nHi\n"


DUP = """<!-- agent:exchange -->
### Re: q

answer
### Re: q

answer
<!-- /agent:exchange -->
"""


@pytest.mark.parametrize("runs", [1, 2])
def test_dedupe_removes_duplicates_idempotently(project: Path, runs: int) -> None:
    doc = project / "doc.md"
    doc.write_text(DUP)
    for _ in range(runs):
        res = agent_doc("dedupe", "doc.md", "--json", cwd=project)
        assert res.returncode == 0, res.stderr
    assert doc.read_text().count("### Re: q") == 1
    assert json.loads(res.stdout)["removed"] == (1 if runs == 1 else 0)
    assert StateStore(project).load_snapshot(doc) == doc.read_text()


@pytest.mark.parametrize("command", ["outline", "convert", "dedupe"])
def test_help_and_missing_file(tmp_path: Path, command: str) -> None:
    assert "Usage:" in agent_doc(command, "--help", cwd=tmp_path).stdout
    res = agent_doc(command, "nope.md", cwd=tmp_path)
    assert res.returncode != 0
    assert res.stderr.startswith("agent-doc: ")
    assert res.stderr.count("\n") == 1
