"""One rule for every command: a surplus argument is a usage error, a broken
frontmatter is refused naming the file, and nothing is touched (issue 39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import cli

BROKEN = "---\nagent_doc_format: template\nfoo: [\n---\n# Plan\n\nkeep me\n"


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "missing.md", "b.md"],
        ["outline", "missing.md", "b.md"],
        ["mode", "missing.md", "x", "y", "z"],
    ],
)
def test_a_surplus_argument_is_a_usage_error_before_the_file_check(
    project: Path, args: list[str]
) -> None:
    (project / "b.md").write_text("# b\n")
    result = cli(project, *args)
    assert result.returncode == 2, result.stderr
    assert "unexpected extra argument" in result.stderr
    assert "no such file" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "plan.md"],
        ["outline", "plan.md"],
        ["compact", "plan.md"],
        ["run", "plan.md"],
        ["mode", "plan.md"],
        ["reset", "plan.md"],
        ["patch", "plan.md", "exchange", "text"],
        ["preflight", "plan.md"],
    ],
    ids=lambda a: a[0],
)
def test_a_broken_frontmatter_is_refused_naming_the_file(
    project: Path, args: list[str]
) -> None:
    doc = project / "plan.md"
    doc.write_text(BROKEN)
    result = cli(project, *args)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "agent-doc: plan.md: line 4: invalid frontmatter YAML: "
        "did not find expected node content"
    ], result.stderr
    assert result.stdout == ""
    assert doc.read_text() == BROKEN
    assert not (project / ".agent-doc" / "snapshots").exists() or not any(
        (project / ".agent-doc" / "snapshots").iterdir()
    )
