"""The neutral edit rule (issue 37 item 3): which Enters and which letters
typed into an empty line leave the structure unchanged, and the line shift an
Enter makes. The answers kept across them are held to the plain computation
in ``tests/lsp/test_structure_reuse.py``."""

from __future__ import annotations

import random

import pytest

from agent_doc.document.neutral_edit import neutral_enter
from agent_doc.document.neutral_edit import neutral_line_fill
from agent_doc.document.neutral_edit import shifted_line
from agent_doc.document.neutral_edit import unshifted_line


@pytest.mark.parametrize(
    ("line", "column", "next_head"),
    [
        ("Words in a line", 6, "more prose"),  # split: prose on both sides
        ("Words in a line", 5, ""),  # the tail keeps its space: " in a line"
        ("  Indented words here", 9, "next"),
        ("Words in a line", 15, ""),  # at the end, before an empty line
        ("Words in a line", 15, "<!-- /agent:exchange -->"),  # before a marker
        ("Words é 😀 line", 10, ""),
    ],
)
def test_a_neutral_enter(line: str, column: int, next_head: str) -> None:
    assert neutral_enter(line, column, next_head)


@pytest.mark.parametrize(
    ("line", "column", "next_head"),
    [
        ("Words in a line", 0, ""),  # at the start: a blank line above it
        ("  Words in a line", 2, ""),  # only the indentation before it
        ("Words in a line", 15, "more prose"),  # a blank line in the paragraph
        ("Words in a line", 15, "more ` tick"),
        ("Words in a line", 15, "  <!-- indented -->"),
        ("Words in a line", 15, "- item"),
        ("Words in a line", 15, "    code or a continuation"),
        ("Title words", 5, "---"),  # above a setext underline
        ("Title words", 11, "==="),
        ("Words in a line", 6, "==="),
        ("Words 2. item", 6, ""),  # the tail would open a list item
        ("Words `code` line", 6, ""),  # a backtick
        ("## Heading", 3, ""),
        ("<!-- agent:status -->", 5, ""),
        ("```py", 2, ""),
        ("CRLF words\r", 4, ""),
        ("Words   ", 6, ""),  # the tail would be a blank line
    ],
)
def test_an_enter_that_may_change_the_structure(
    line: str, column: int, next_head: str
) -> None:
    assert not neutral_enter(line, column, next_head)


def test_typing_into_an_empty_line() -> None:
    assert neutral_line_fill("Prose above", "w", "")
    assert neutral_line_fill("Prose above", "Words é", "<!-- /agent:x -->")
    assert not neutral_line_fill("", "w", "")  # a paragraph of its own
    assert not neutral_line_fill("## Heading", "w", "")
    assert not neutral_line_fill("Prose above", "w", "Prose below")  # joins them
    assert not neutral_line_fill("Prose above", "w", "---")  # a setext title
    assert not neutral_line_fill("Prose above", "`", "")
    assert not neutral_line_fill("Prose above", "- item", "")
    assert not neutral_line_fill("Prose above\r", "w", "")


def test_lines_shift_past_each_enter_and_back() -> None:
    assert shifted_line(3, [5]) == 3
    assert shifted_line(5, [5]) == 5  # the line split keeps its number
    assert shifted_line(6, [5]) == 7
    assert shifted_line(6, [5, 2]) == 8
    assert shifted_line(6, [7, 2]) == 7
    assert unshifted_line(6, [5]) == 5  # the line an Enter made: the one split
    rnd = random.Random(7)
    for _ in range(200):
        enters = [rnd.randrange(30) for _ in range(rnd.randint(0, 5))]
        line = rnd.randrange(40)
        assert unshifted_line(shifted_line(line, enters), enters) == line
