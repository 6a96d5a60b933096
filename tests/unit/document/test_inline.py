"""The inline ``## Assistant`` / ``## User`` write form (spec §7.1, case 13)."""

from __future__ import annotations

import pytest

from agent_doc.document.inline import append_inline_response
from agent_doc.document.inline import strip_assistant_heading
from agent_doc.errors import PatchError

BASE = "---\nsession: test\n---\n\n## User\n\nHello\n"


def test_append_adds_assistant_section_and_empty_user_section() -> None:
    out = append_inline_response(BASE, "This is the assistant response.")
    assert out == BASE + (
        "## Assistant\n\nThis is the assistant response.\n\n## User\n\n"
    )


def test_response_headings_are_not_duplicated() -> None:
    out = append_inline_response(BASE, "## Assistant\n\nHello\n\n## User")
    assert out == BASE + "## Assistant\n\nHello\n\n## User\n\n"
    assert out.count("## Assistant") == 1
    assert out.count("## User") == 2


def test_base_without_final_newline_gets_one() -> None:
    out = append_inline_response("## User\n\nHi", "Yo")
    assert out == "## User\n\nHi\n## Assistant\n\nYo\n\n## User\n\n"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        pytest.param("## Assistant\n\nHello\n\n## User", "Hello\n", id="both"),
        pytest.param("\n\n  ## Assistant  \nHi\n", "Hi\n", id="indented-heading"),
        pytest.param("Text\n## User\n\n", "Text\n", id="trailing-user"),
        pytest.param(
            "    code block\nok\n\n\n", "    code block\nok\n", id="keeps-indent"
        ),
        pytest.param(
            "## Assistant notes\nx", "## Assistant notes\nx\n", id="not-heading"
        ),
        pytest.param("Mention ## User here", "Mention ## User here\n", id="midline"),
    ],
)
def test_strip_assistant_heading(response: str, expected: str) -> None:
    assert strip_assistant_heading(response) == expected


@pytest.mark.parametrize("response", ["", "  \n\n", "## Assistant\n\n## User\n"])
def test_empty_response_is_an_error(response: str) -> None:
    with pytest.raises(PatchError, match="empty response — nothing to write"):
        append_inline_response(BASE, response)
