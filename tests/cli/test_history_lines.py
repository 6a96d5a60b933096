"""``history`` lines say where each exchange ended; ``--restore`` brings no
commit-only markers into the working file (issue 39)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cycle import DOC
from tests.cli.test_cycle import fake_agent  # noqa: F401 - fixture
from tests.cli_runner import cli


def _two_turns(project: Path, log: Path) -> Path:
    doc = project / "plan.md"
    doc.write_text(DOC)
    env = {"FAKE_CLAUDE_LOG": str(log), "FAKE_CLAUDE_REPLY": "### Re: the sum\n\n4."}
    assert cli(project, "run", "plan.md", env=env).returncode == 0
    doc.write_text(
        doc.read_text().replace(
            "<!-- /agent:exchange -->",
            "## User\n\nAnd 3 + 3?\n<!-- /agent:exchange -->",
        )
    )
    env["FAKE_CLAUDE_REPLY"] = "### Re: the second sum\n\n6."
    assert cli(project, "run", "plan.md", env=env).returncode == 0
    return doc


def test_history_shows_each_commits_last_heading(
    project: Path,
    fake_agent: Path,  # noqa: F811
) -> None:
    _two_turns(project, fake_agent)
    result = cli(project, "history", "plan.md")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].endswith("  ### Re: the second sum"), lines
    assert lines[1].endswith("  ### Re: the sum"), lines
    assert "boundary" not in result.stdout
    assert "(HEAD)" not in result.stdout


def test_history_of_a_question_shows_the_question(project: Path) -> None:
    (project / "plan.md").write_text(DOC)
    assert cli(project, "commit", "plan.md").returncode == 0
    line = cli(project, "history", "plan.md").stdout.strip()
    assert line.endswith("  ## User: What is 2 + 2?"), line


def test_restore_leaves_no_head_markers_and_one_boundary(
    project: Path,
    fake_agent: Path,  # noqa: F811
) -> None:
    doc = _two_turns(project, fake_agent)
    first = cli(project, "history", "plan.md").stdout.splitlines()[1].split()[0]
    result = cli(project, "history", "plan.md", "--restore", first)
    assert result.returncode == 0, result.stderr
    text = doc.read_text()
    assert "(HEAD)" not in text
    assert text.count("<!-- agent:boundary:") <= 1
    assert text.count("### Re: the sum") == 2  # restored above the current one


def test_an_empty_prompt_after_the_answer_is_passed_over(project: Path) -> None:
    """Agents that leave a fresh ``## User`` below their answer (inline style)."""
    (project / "plan.md").write_text(
        DOC.replace(
            "<!-- /agent:exchange -->",
            "\n### Re: the sum\n\nIt is 4.\n\n## User\n\n<!-- /agent:exchange -->",
        )
    )
    assert cli(project, "commit", "plan.md").returncode == 0
    line = cli(project, "history", "plan.md").stdout.strip()
    assert line.endswith("  ### Re: the sum"), line
