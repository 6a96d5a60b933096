"""Removing consecutive duplicate ``### Re:`` response blocks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.dedupe import dedupe_responses

OPEN = "<!-- agent:exchange -->\n"
CLOSE = "<!-- /agent:exchange -->\n"
RESPONSE = "### Re: the question\n\nThe answer.\n\n"


def test_duplicate_response_is_removed() -> None:
    text = OPEN + "Question?\n\n" + RESPONSE + RESPONSE + CLOSE
    assert dedupe_responses(text) == (OPEN + "Question?\n\n" + RESPONSE + CLOSE, 1)


def test_boundary_markers_do_not_count_and_survive() -> None:
    boundary = "<!-- agent:boundary:0a1b2c3d -->\n"
    text = OPEN + RESPONSE + RESPONSE + boundary + CLOSE
    new, removed = dedupe_responses(text)
    assert removed == 1
    assert new == OPEN + RESPONSE + boundary + CLOSE


def test_head_marker_and_trailing_blanks_do_not_count() -> None:
    first = "### Re: the question (HEAD)\n\nThe answer.\n"
    text = first + "\n\n" + RESPONSE.rstrip("\n")
    assert dedupe_responses(text) == (first + "\n\n", 1)


def test_runs_of_duplicates_keep_the_first_and_are_idempotent() -> None:
    other = "### Re: another\n\nDifferent.\n\n"
    text = OPEN + RESPONSE * 3 + other + other + RESPONSE + CLOSE
    new, removed = dedupe_responses(text)
    assert removed == 3
    assert new == OPEN + RESPONSE + other + RESPONSE + CLOSE
    assert dedupe_responses(new) == (new, 0)


def test_blocks_separated_by_other_content_are_kept() -> None:
    text = RESPONSE + "## User\n\nAgain?\n\n" + RESPONSE
    assert dedupe_responses(text) == (text, 0)
    split = (
        OPEN
        + RESPONSE
        + CLOSE
        + "<!-- agent:notes -->\n"
        + RESPONSE
        + "<!-- /agent:notes -->\n"
    )
    assert dedupe_responses(split) == (split, 0)


def test_different_subsections_make_different_blocks() -> None:
    a = "### Re: q\n\n#### Detail\n\nOne.\n\n"
    b = "### Re: q\n\n#### Detail\n\nTwo.\n\n"
    assert dedupe_responses(a + b) == (a + b, 0)
    assert dedupe_responses(a + a) == (a, 1)


def test_blocks_in_code_are_ignored() -> None:
    fence = "```md\n" + RESPONSE + RESPONSE + "```\n"
    assert dedupe_responses(fence) == (fence, 0)
    text = RESPONSE + fence
    assert dedupe_responses(text) == (text, 0)
    comment = "<!--\n" + RESPONSE + RESPONSE + "-->\n"
    assert dedupe_responses(comment) == (comment, 0)


def test_text_without_responses_is_unchanged() -> None:
    assert dedupe_responses("# Doc\n\ntext\n") == ("# Doc\n\ntext\n", 0)


_PARTS = st.sampled_from(
    [
        RESPONSE,
        "### Re: other\nx\n",
        "### Re: other\nx\n<!-- agent:boundary:deadbeef -->\n",
        "## User\n\nq\n\n",
        "<!-- agent:boundary:cafebabe -->\n",
        "plain line\n",
        "```\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=12))
def test_dedupe_is_idempotent_and_keeps_boundaries(parts: list[str]) -> None:
    text = "".join(parts)
    new, removed = dedupe_responses(text)
    assert dedupe_responses(new) == (new, 0)
    assert (removed == 0) == (new == text)
    assert new.count("agent:boundary:") == text.count("agent:boundary:")
    assert len(new) <= len(text)
