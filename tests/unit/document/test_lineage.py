"""The edit notes: what they answer, chained, and what they refuse."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_doc.document import lineage


@pytest.fixture(autouse=True)
def _no_notes() -> Iterator[None]:
    lineage.forget_edits()
    yield
    lineage.forget_edits()


def _edit(text: str, start: int, end: int, new: str) -> str:
    after = text[:start] + new + text[end:]
    lineage.note_edit(text, after, start, len(text) - end, text.count("\n", 0, start))
    return after


def test_a_chain_of_edits_answers_the_least_each_kept() -> None:
    first = "one\ntwo\nthree\nfour\n" * 3
    second = _edit(first, 40, 42, "XY")
    third = _edit(second, 10, 10, "\nnew\n")
    agreed = lineage.common_ends(first, third)
    assert agreed == lineage.Agreement(10, len(first) - 42, first.count("\n", 0, 10))
    assert first[: agreed.head] == third[: agreed.head]
    assert first[-agreed.tail :] == third[-agreed.tail :]
    assert lineage.common_ends(second, third) == lineage.Agreement(
        10, len(second) - 10, 2
    )


def test_unknown_pairs_and_old_notes_answer_none() -> None:
    text = "abc\n" * 10
    other = "".join(["abc\n"] * 10)  # equal, another object: not told about it
    later = _edit(text, 4, 4, "x")
    assert lineage.common_ends(other, later) is None
    assert lineage.common_ends(later, text) is None  # one way only
    assert lineage.common_ends(text, text) is None  # identity: the caller's test
    current = later
    for n in range(lineage.LIMIT):
        current = _edit(current, n, n, "y")
    assert lineage.common_ends(text, current) is None  # the first note is gone


@pytest.mark.parametrize(
    ("head", "tail", "lines"), [(5, 6, 0), (-1, 0, 0), (0, -1, 0), (0, 0, -1)]
)
def test_a_note_that_cannot_hold_is_not_kept(head: int, tail: int, lines: int) -> None:
    before, after = "0123456789", "01234x6789"
    lineage.note_edit(before, after, head, tail, lines)
    assert lineage.common_ends(before, after) is None


def test_only_noted_texts_are_noted() -> None:
    text = "abc\n" * 3
    assert not lineage.is_noted(text)
    after = _edit(text, 2, 2, "x")
    assert lineage.is_noted(after)
    assert not lineage.is_noted(text)  # the first version: nothing before it
