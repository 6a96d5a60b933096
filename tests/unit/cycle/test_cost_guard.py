"""The cost guard's decisions and its sizes, on plain values."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.cycle.cost_guard import CostGuard
from agent_doc.cycle.cost_guard import PromptCost
from agent_doc.cycle.cost_guard import PromptTooLarge
from agent_doc.cycle.cost_guard import human_bytes
from agent_doc.cycle.cost_guard import human_count

DOC = Path("notes.md")


def test_a_prompt_at_or_under_the_limit_passes_without_asking() -> None:
    asked: list[PromptCost] = []
    guard = CostGuard(DOC, 10, ask=lambda c: asked.append(c) is None)
    assert guard.check("x" * 10, "why") == "x" * 10
    assert asked == []


def test_above_the_limit_with_nobody_to_ask_it_is_refused() -> None:
    with pytest.raises(PromptTooLarge) as caught:
        CostGuard(DOC, 10).check("é" * 6, "a first turn")  # 12 bytes
    message = str(caught.value)
    assert "12 B (about 3 tokens), above the 10 B limit (a first turn)" in message
    assert "'agent-doc run notes.md --yes'" in message
    assert caught.value.cost.size == 12


def test_an_answer_is_asked_once_per_turn_and_announced() -> None:
    asked: list[PromptCost] = []
    said: list[str] = []
    guard = CostGuard(
        DOC, 10, ask=lambda c: asked.append(c) is None, announce=said.append
    )
    guard.check("x" * 11, "first")
    guard.check("x" * 50, "lost")  # agreed already: not asked again
    assert [c.size for c in asked] == [11]
    assert said == [
        "agent-doc: sending 11 B (about 3 tokens): first",
        "agent-doc: sending 50 B (about 13 tokens): lost",
    ]


def test_a_no_is_a_refusal_that_says_so() -> None:
    guard = CostGuard(DOC, 10, ask=lambda c: False)
    with pytest.raises(PromptTooLarge, match="you declined") as caught:
        guard.check("x" * 11, "first")
    assert caught.value.declined


@pytest.mark.parametrize("limit", [0, -1])
def test_no_limit_never_asks(limit: int) -> None:
    assert CostGuard(DOC, limit).check("x" * 10**6, "why")


def test_approved_sends_without_asking() -> None:
    assert CostGuard(DOC, 1, approved=True).check("xx", "why") == "xx"


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 KB"),
        (200_000, "200 KB"),
        (99_949, "99.9 KB"),
        (19_278_399, "19.3 MB"),
        (3 * 10**9, "3.0 GB"),
        (2 * 10**12, "2000 GB"),
    ],
)
def test_sizes_read_as_a_person_would(size: int, shown: str) -> None:
    assert human_bytes(size) == shown


@pytest.mark.parametrize(
    ("count", "shown"),
    [(950, "950"), (1_500, "1.5 k"), (62_000, "62 k"), (4_819_600, "4.8 M")],
)
def test_token_counts_read_as_a_person_would(count: int, shown: str) -> None:
    assert human_count(count) == shown
