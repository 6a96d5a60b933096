"""Streaming an answer into a live buffer: ``write/stream.py`` and the ACP helpers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.cycle.acp_requests import PermissionChoice
from agent_doc.cycle.acp_requests import pick_by_policy
from agent_doc.cycle.acp_requests import slice_lines
from agent_doc.document.apply import build_content_ours
from agent_doc.write.live import TextChange
from agent_doc.write.stream import StreamedAnswer
from agent_doc.write.stream import streamable
from agent_doc.write.stream import with_resume_field

TEMPLATE = (
    "---\nagent_doc_format: template\n---\n# Plan\n\n"
    "<!-- agent:exchange patch=append -->\nWhat is 2 + 2?\n<!-- /agent:exchange -->\n"
    "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\nNotes:\n"
)
INLINE = "---\nagent_doc_format: inline\n---\n## User\n\nWhat is 2 + 2?\n"


def test_streamable_holds_back_unfinished_markers() -> None:
    assert streamable("plain text") == "plain text"
    assert streamable("text <") == "text "
    assert streamable("text <!-") == "text "
    assert streamable("text <!-- patch:sta") == "text "
    assert streamable("a <!-- patch:status -->busy") == "a "
    done = "a <!-- patch:status -->busy<!-- /patch:status --> b"
    assert streamable(done) == done
    assert streamable(done + " <!-- patch:status -->x") == done + " "


def insert_only(changes: tuple[TextChange, ...]) -> bool:
    return all(change.start == change.end for change in changes)


def test_template_steps_are_insertions_and_end_at_content_ours() -> None:
    answer = (
        "### Re: sum\n\nIt is 4.\n<!-- patch:status -->answered<!-- /patch:status -->\n"
    )
    stream = StreamedAnswer(TEMPLATE, {})
    live = TEMPLATE
    for end in range(1, len(answer) + 1, 5):
        target = stream.target(answer[:end])
        plan = stream.plan(live, target)
        if "<!-- patch:status -->" not in answer[:end]:
            assert insert_only(plan.changes)
        live = plan.merged
        stream.landed(target)
    final = stream.target(answer, final=True)
    live = stream.plan(live, final).merged
    expected = build_content_ours(TEMPLATE, answer, {}, boundary_id=stream.boundary_id)
    assert final == expected  # the snapshot equals a one-shot write's content_ours
    assert live == expected
    assert "answered" in live
    assert "idle" not in live


def test_inline_steps_grow_the_assistant_section() -> None:
    stream = StreamedAnswer(INLINE, {})
    live = INLINE
    for part in ("It ", "It is ", "It is 4."):
        target = stream.target(part)
        plan = stream.plan(live, target)
        assert insert_only(plan.changes)
        live = plan.merged
        stream.landed(target)
    assert live.startswith(INLINE)
    assert "## Assistant\n\nIt is 4.\n" in live


@settings(max_examples=40, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=8),
    typed=st.lists(st.text(alphabet="abc xyz\n", min_size=1, max_size=5), max_size=8),
)
def test_person_typing_at_the_end_is_kept_exactly(
    cuts: list[int], typed: list[str]
) -> None:
    answer = "### Re: q\n\nalpha beta gamma delta epsilon zeta eta theta iota kappa"
    stream = StreamedAnswer(TEMPLATE, {})
    live = TEMPLATE
    person = ""
    for i, cut in enumerate(sorted(cuts)):
        if i < len(typed):
            live += typed[i]  # the person types below, between two steps
            person += typed[i]
        target = stream.target(answer[:cut])
        live = stream.plan(live, target).merged
        stream.landed(target)
    final = stream.target(answer, final=True)
    live = stream.plan(live, final).merged
    assert live.endswith("Notes:\n" + person)
    assert live.count(answer) == 1


def test_with_resume_field_sets_only_that_line() -> None:
    text = with_resume_field(TEMPLATE, "acp-1")
    assert text.replace("resume: acp-1\n", "") == TEMPLATE
    assert with_resume_field(text, "acp-1") == text
    assert with_resume_field(TEMPLATE, None) == TEMPLATE


def test_permission_policy_and_read_slices() -> None:
    choices = [
        PermissionChoice("a", "Allow", "allow_once"),
        PermissionChoice("r", "Reject", "reject_once"),
    ]
    assert pick_by_policy("allow", choices) == "a"
    assert pick_by_policy("reject", choices) == "r"
    assert pick_by_policy("allow", choices[1:]) is None
    text = "one\ntwo\nthree\n"
    assert slice_lines(text, None, None) == text
    assert slice_lines(text, 2, 1) == "two\n"
    assert slice_lines(text, 2, None) == "two\nthree\n"
    assert slice_lines(text, None, 1) == "one\n"
