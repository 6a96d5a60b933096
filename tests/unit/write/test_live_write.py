"""Unit tests for agent_doc.write.live (pure planning of live-buffer writes)."""

from __future__ import annotations

import importlib.util
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_doc.write.live import TextChange
from agent_doc.write.live import apply_changes
from agent_doc.write.live import minimal_change
from agent_doc.write.live import minimal_changes
from agent_doc.write.live import plan_merge
from agent_doc.write.live import plan_reposition
from agent_doc.write.live import plan_write
from agent_doc.write.live import plan_write_retry

HAVE_CORE = all(
    importlib.util.find_spec(m) is not None
    for m in (
        "agent_doc.document.merge",
        "agent_doc.document.apply",
        "agent_doc.document.boundary",
    )
)
needs_core = pytest.mark.skipif(not HAVE_CORE, reason="core merge/patching not built")

TEMPLATE = (
    "---\nagent_doc_format: template\n---\n\n"
    "<!-- agent:exchange -->\nQuestion?\n<!-- /agent:exchange -->\n"
)


@given(st.text(alphabet="ab\n\r😀é"), st.text(alphabet="ab\n\r😀é"))
def test_minimal_change_turns_old_into_new(old: str, new: str) -> None:
    change = minimal_change(old, new)
    if old == new:
        assert change is None
        return
    assert change is not None
    assert change.apply(old) == new
    assert 0 <= change.start <= change.end <= len(old)


def test_minimal_change_is_one_small_range() -> None:
    old = "alpha\nbeta\ngamma\n"
    new = "alpha\nbeta\nNEW\ngamma\n"
    assert minimal_change(old, new) == TextChange(11, 11, "NEW\n")


def test_minimal_change_never_splits_crlf() -> None:
    change = minimal_change("a\r\nb", "a\r\r\nb")
    assert change is not None
    assert change.start != 2
    assert change.apply("a\r\nb") == "a\r\r\nb"


def test_plan_merge_unchanged_buffer_takes_ours() -> None:
    plan = plan_merge("base\n", "base\nanswer\n", "base\n")
    assert plan.merged == "base\nanswer\n"
    assert plan.changes == (TextChange(5, 5, "answer\n"),)


def test_plan_merge_agent_changed_nothing_keeps_buffer() -> None:
    plan = plan_merge("base\n", "base\n", "base\nuser\n")
    assert plan.merged == "base\nuser\n"
    assert plan.changes == ()


def test_plan_merge_keeps_crlf_buffer_line_endings() -> None:
    plan = plan_merge("a\nb\n", "a\nb\nc\n", "a\r\nb\r\n")
    assert plan.merged == "a\r\nb\r\nc\r\n"
    assert plan.changes == (TextChange(6, 6, "c\r\n"),)


@needs_core
def test_plan_merge_keeps_user_text_before_response() -> None:
    base = "Line 1\nLine 3\n"
    ours = "Line 1\nAgent line\nLine 3\n"
    theirs = "Line 1\nUser line\nLine 3\n"
    plan = plan_merge(base, ours, theirs)
    assert "Agent line" in plan.merged
    assert "User line" in plan.merged
    assert apply_changes(theirs, plan.changes) == plan.merged


@needs_core
def test_plan_write_merges_response_with_live_edits() -> None:
    live = TEMPLATE.replace("Question?\n", "Question?\nmore typing\n")
    response = "<!-- patch:exchange -->\nAnswer.\n<!-- /patch:exchange -->\n"
    base, plan = plan_write(live, TEMPLATE, response, {})
    assert base == TEMPLATE
    assert "Answer." in plan.content_ours
    assert "more typing" not in plan.content_ours
    assert "Answer." in plan.merged
    assert "more typing" in plan.merged
    assert apply_changes(live, plan.changes) == plan.merged


LINES = st.lists(st.sampled_from(["a", "b", "é😀", "", "x y", "\r"]), max_size=8)


@given(LINES, LINES)
def test_minimal_changes_turn_old_into_new_with_disjoint_edits(
    old_lines: list[str], new_lines: list[str]
) -> None:
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    changes = minimal_changes(old, new)
    assert apply_changes(old, changes) == new
    assert (changes == ()) == (old == new)
    for first, second in itertools.pairwise(changes):
        assert first.end <= second.start  # disjoint, ascending
    for change in changes:  # never an edit that changes nothing
        assert old[change.start : change.end] != change.new_text


def test_status_replace_and_exchange_append_are_two_edits() -> None:
    middle = "".join(f"line {n}\n" for n in range(20))
    old = f"status: idle\n{middle}Question?\n<!-- /agent:exchange -->\n"
    new = old.replace("idle", "busy").replace("Question?\n", "Question?\nAnswer.\n")
    changes = minimal_changes(old, new)
    assert changes == (
        TextChange(8, 12, "busy"),
        TextChange(old.index("<!--"), old.index("<!--"), "Answer.\n"),
    )


@needs_core
def test_no_edit_covers_the_line_the_person_types_in() -> None:
    base = TEMPLATE.replace("Question?\n", "Question?\n")
    live = TEMPLATE.replace("Question?\n", "Question? and then what about")
    live = live.replace("what about", "what about\n")
    response = (
        "<!-- patch:exchange -->\n### Re: question\n\nAnswer.\n"
        "<!-- /patch:exchange -->\n"
    )
    _base, plan = plan_write(live, base, response, {})
    typed_from = live.index("Question?")
    typed_to = live.index("\n", typed_from)
    for change in plan.changes:
        assert change.end <= typed_from or change.start > typed_to, change
    assert apply_changes(live, plan.changes) == plan.merged
    assert "Question? and then what about\n" in plan.merged


def test_reposition_never_edits_the_blank_line_the_person_is_on() -> None:
    live = "<!-- agent:exchange -->\nQ?\n\n<!-- /agent:exchange -->\n"
    plan = plan_reposition(live)
    [change] = plan.changes
    blank_line_start = live.index("\n\n") + 1
    assert change.start > blank_line_start  # below the person's line
    assert apply_changes(live, plan.changes).startswith(live[: blank_line_start + 1])


@needs_core
def test_a_retry_into_a_buffer_holding_the_answer_changes_nothing() -> None:
    # Neovim reports a multi-edit workspace edit piecewise: the server may take
    # an applied attempt for a skipped one; the retry must not add it again.
    base = (
        "<!-- agent:exchange -->\nQ?\n\n<!-- agent:boundary:aaaaaaaa -->\n"
        "<!-- /agent:exchange -->\n"
    )
    response = "<!-- patch:exchange -->\n### Re: q\n\nA.\n<!-- /patch:exchange -->\n"
    live = base.replace("Q?\n\n", "Q?\nAnd\n")
    _, first = plan_write(live, base, response, {}, "bbbbbbbb")
    landed = apply_changes(live, first.changes)
    typed_more = landed.replace("And\n", "And more\n")
    retry = plan_write_retry(base, first.content_ours, typed_more)
    assert retry.changes == ()
    assert retry.merged == typed_more
    assert retry.merged.count("### Re: q") == 1
    fresh = plan_write_retry(base, first.content_ours, live)  # not landed yet
    assert fresh.merged == first.merged
