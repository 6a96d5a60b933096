"""A fresh document is not sent until the person writes something in it."""

from __future__ import annotations

import pytest

from agent_doc.cycle.project import scaffold_text
from agent_doc.document.scaffold import nothing_typed

SESSION = "11111111-2222-3333-4444-555555555555"
SCAFFOLD = scaffold_text("Plan", SESSION, "claude")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(SCAFFOLD, id="init-scaffold"),
        pytest.param(SCAFFOLD.replace("## User\n", "## User\n\n\n   \n"), id="blanks"),
        pytest.param(SCAFFOLD.replace("## User", "### user:"), id="other-heading"),
        pytest.param("", id="empty-file"),
        pytest.param(f"---\nagent_doc_session: {SESSION}\n---\n", id="only-front"),
        pytest.param("# Notes\n\n<!-- a reminder to myself -->\n", id="comment"),
    ],
)
def test_the_scaffold_alone_is_nothing_typed(text: str) -> None:
    assert nothing_typed(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            SCAFFOLD.replace("## User\n", "## User\n\nWhat next?\n"), id="question"
        ),
        pytest.param(
            SCAFFOLD.replace("# Plan\n", "# Plan\n\nSome context.\n"), id="context"
        ),
        pytest.param(
            SCAFFOLD.replace(
                "<!-- agent:status patch=replace -->\n",
                "<!-- agent:status patch=replace -->\nblocked on review\n",
            ),
            id="inside-a-component",
        ),
        pytest.param("# Plan\n\n## Goals\n", id="a-second-heading"),
        pytest.param("Just a line, no frontmatter.\n", id="plain"),
    ],
)
def test_anything_else_counts_as_typed(text: str) -> None:
    assert not nothing_typed(text)
