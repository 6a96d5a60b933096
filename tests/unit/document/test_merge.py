"""Deterministic tests of the CRDT merge (upstream acceptance cases 16–20 and more)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from pycrdt import Doc
from pycrdt import Text

from agent_doc.document import merge as merge_module
from agent_doc.document.linediff import diff_lines
from agent_doc.document.linediff import split_lines
from agent_doc.document.merge import MergeResult
from agent_doc.document.merge import encode_text_state
from agent_doc.document.merge import merge_texts
from agent_doc.errors import MergeError


def decode(state: bytes) -> str:
    doc: Doc[Any] = Doc()
    doc.apply_update(state)
    return str(doc.get("content", type=Text))


def merged(base: str, ours: str, theirs: str) -> str:
    result = merge_texts(base, ours, theirs)
    assert decode(result.state) == result.text
    return result.text


# --- upstream case 16: identity and one-sided changes -------------------------


def test_identical_sides_return_ours_verbatim() -> None:
    text = "a\nb\n"
    result = merge_texts("x\n", text, text)
    assert result == MergeResult(text, result.state)
    assert decode(result.state) == text


def test_user_unchanged_returns_ours_exactly() -> None:
    base = "Original.\n"
    ours = "Original.\nAgent added.\n"
    assert merged(base, ours, base) == ours


def test_agent_unchanged_returns_theirs_exactly() -> None:
    base = "Original.\n"
    theirs = "Original. edited\nmore"
    assert merged(base, base, theirs) == theirs


# --- upstream case 17: concurrent inserts at the same spot --------------------


def test_same_position_inserts_put_agent_text_first() -> None:
    base = "Line 1\nLine 3\n"
    ours = "Line 1\nAgent line\nLine 3\n"
    theirs = "Line 1\nUser line\nLine 3\n"
    assert merged(base, ours, theirs) == "Line 1\nAgent line\nUser line\nLine 3\n"


def test_same_position_inserts_at_end_keep_prompt_answer_followup() -> None:
    base = "Question?\n"
    ours = base + "### Re: Question\n\nAnswer.\n"
    theirs = base + "Follow-up\n"
    assert merged(base, ours, theirs) == ours + "Follow-up\n"


# --- upstream case 18: text both sides contain is not duplicated --------------


def test_shared_user_text_in_both_sides_appears_once() -> None:
    base = "Line 1\nLine 2\n"
    ours = base + "User typed this.\nAgent response.\n"
    theirs = base + "User typed this.\n"
    result = merged(base, ours, theirs)
    assert result == ours
    assert result.count("User typed this.") == 1


def test_shared_text_with_trailing_structure_appears_once() -> None:
    base = "<!-- agent:exchange -->\nQ\n<!-- /agent:exchange -->\n"
    ours = "<!-- agent:exchange -->\nQ\nU\nA\n<!-- /agent:exchange -->\n"
    theirs = "<!-- agent:exchange -->\nQ\nU\nmore\n<!-- /agent:exchange -->\n"
    assert merged(base, ours, theirs) == (
        "<!-- agent:exchange -->\nQ\nU\nA\nmore\n<!-- /agent:exchange -->\n"
    )


def test_identical_change_on_both_sides_is_applied_once() -> None:
    base = "a\nb\nc\n"
    ours = "a\nB!\nc\nagent\n"
    theirs = "a\nB!\nc\n"
    assert merged(base, ours, theirs) == "a\nB!\nc\nagent\n"


def test_empty_base_with_shared_document_is_not_duplicated() -> None:
    doc = "".join(f"paragraph number {i} with some words\n" for i in range(10))
    ours = doc + "Agent answer here.\n"
    theirs = doc[:40] + "User inserted line.\n" + doc[40:]
    result = merged("", ours, theirs)
    assert result.count("paragraph number 5") == 1
    assert "User inserted line.\n" in result
    assert result.endswith("Agent answer here.\n")


# --- upstream case 19: no character interleaving ------------------------------


def test_concurrent_lines_do_not_interleave_characters() -> None:
    base = "# Doc\n\nPrevious content.\n\n"
    ours = base + "*Compacted. Content archived to*\n"
    theirs = base + "**Soft-bristle brush only**\n"
    result = merged(base, ours, theirs)
    assert "*Compacted. Content archived to*\n" in result
    assert "**Soft-bristle brush only**\n" in result
    assert result == ours + "**Soft-bristle brush only**\n"


def test_both_rewriting_one_line_keeps_both_whole_lines() -> None:
    base = "a\nx\nb\n"
    ours = "a\n*Compacted*\nb\n"
    theirs = "a\n**Soft**\nb\n"
    assert merged(base, ours, theirs) == "a\n*Compacted*\n**Soft**\nb\n"


# --- upstream case 20: multi-cycle with persisted state ----------------------


def test_multi_cycle_with_state_keeps_user_edit_once() -> None:
    initial = "Why were the videos not public?\n"
    first = merge_texts(
        initial,
        initial + "Always publish public videos.\n",
        initial + "user-edit-abc\n",
    )
    assert "Always publish public videos." in first.text
    assert first.text.count("user-edit-abc") == 1
    ours = first.text + "...unless explicitly set to private.\n"
    second = merge_texts(first.text, ours, first.text, first.state)
    assert second.text == ours
    assert second.text.count("user-edit-abc") == 1
    third = merge_texts(first.text, ours, first.text + "again\n", first.state)
    assert third.text == ours + "again\n"


@pytest.mark.parametrize(
    "state",
    [
        pytest.param(b"garbage", id="invalid"),
        pytest.param(b"", id="empty"),
        pytest.param(encode_text_state("something else\n"), id="other-text"),
    ],
)
def test_unusable_base_state_is_rebuilt_from_base(state: bytes) -> None:
    base = "one\ntwo\n"
    result = merge_texts(base, base + "agent\n", "zero\n" + base, state)
    assert result.text == "zero\none\ntwo\nagent\n"


def test_state_encodes_merged_text() -> None:
    result = merge_texts("a\n", "a\nb\n", "c\na\n")
    assert decode(result.state) == "c\na\nb\n"
    assert result.state == encode_text_state("c\na\nb\n")


# --- user edits and agent edits elsewhere -------------------------------------


def test_user_deleting_region_while_agent_appends_elsewhere() -> None:
    base = "keep 1\ndrop 1\ndrop 2\nkeep 2\n<!-- end -->\n"
    ours = base.replace("<!-- end -->\n", "agent\n<!-- end -->\n")
    theirs = "keep 1\nkeep 2\n<!-- end -->\n"
    assert merged(base, ours, theirs) == "keep 1\nkeep 2\nagent\n<!-- end -->\n"


def test_user_editing_mid_line_of_line_agent_also_changed() -> None:
    base = "status: old\nx\n"
    ours = "status: new value\nx\n"
    theirs = "status: old (checked)\nx\n"
    assert merged(base, ours, theirs) == "status: new value (checked)\nx\n"


def test_user_typing_mid_line_next_to_agent_insert() -> None:
    base = "intro\nThe quick fox\nend\n"
    ours = "intro\nThe quick fox\nAGENT\nend\n"
    theirs = "intro\nThe quick brown fox jumps\nend\n"
    assert merged(base, ours, theirs) == (
        "intro\nThe quick brown fox jumps\nAGENT\nend\n"
    )


# --- unicode ----------------------------------------------------------------


def test_emoji_and_cjk_near_edit_points() -> None:
    base = "é😀 héllo wörld\n日本語のテキスト\n👩‍👩‍👧 family\n"
    ours = base.replace("日本語のテキスト\n", "日本語のテキスト\n🤖 答え\n")
    theirs = base.replace("héllo wörld", "héllo 🌍 big wörld").replace(
        "family", "family 家族"
    )
    assert merged(base, ours, theirs) == (
        "é😀 héllo 🌍 big wörld\n日本語のテキスト\n🤖 答え\n👩‍👩‍👧 family 家族\n"
    )


def test_emoji_inserted_at_same_line_by_both() -> None:
    base = "😀😀\n"
    ours = "😀😀 agent 🤖\n"
    theirs = "😀 user 😃😀\n"
    result = merged(base, ours, theirs)
    assert "agent 🤖" in result
    assert "user 😃" in result
    assert result.count("😀") == 2


# --- shapes -------------------------------------------------------------------


def test_empty_base() -> None:
    assert merged("", "Agent\n", "User\n") == "Agent\nUser\n"


def test_no_trailing_newline_user_keeps_typing_on_last_line() -> None:
    assert merged("abc", "abc\nAgent\n", "abcd") == "abcd\nAgent\n"


def test_no_trailing_newline_kept_when_no_side_adds_one() -> None:
    assert merged("a\nb", "A\nb", "a\nb c") == "A\nb c"


def test_removed_final_newline_by_user_survives() -> None:
    base = "a\nb\n"
    assert merged(base, "agent\n" + base, "a\nb") == "agent\na\nb"


def test_line_separators_other_than_newline_are_plain_text() -> None:
    base = "a\u2028b\rc\n"
    ours = base + "agent\n"
    theirs = "a\u2028B\rc\n"
    assert merged(base, ours, theirs) == "a\u2028B\rc\nagent\n"


def test_lone_surrogate_raises_merge_error() -> None:
    with pytest.raises(MergeError):
        merge_texts("a\n", "a\nb\n", "\ud800\na\n")


def _big_document(lines: int) -> str:
    return "".join(
        f"Line {i}: some prose about the document, é and 😀 here {i * 7}\n"
        if i % 5
        else "\n"
        for i in range(lines)
    )


def test_one_megabyte_document_with_scattered_edits_merges_fast() -> None:
    base = _big_document(20_000)
    assert len(base.encode()) > 1_000_000
    lines = split_lines(base)
    user = list(lines)
    for k in range(20):
        i = 501 + k * 950
        user[i] = user[i].replace("prose", "PROSE edited")
    theirs = "".join(user)
    middle = len(lines) // 2
    ours = "".join([*lines[:middle], "### Re: agent\n", "Answer.\n", *lines[middle:]])
    merge_texts(base, ours, theirs)  # warm up pycrdt
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        result = merge_texts(base, ours, theirs)
        timings.append(time.perf_counter() - start)
    assert result.text.count("PROSE edited") == 20
    assert result.text.count("### Re: agent\nAnswer.\n") == 1
    assert len(result.text) == len(theirs) + len("### Re: agent\nAnswer.\n")
    assert sorted(timings)[2] < 0.5  # generous bound for loaded CI; bench has 50 ms


# --- the line diff ------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("", "x\n", id="insert-into-empty"),
        pytest.param("x\n", "", id="delete-all"),
        pytest.param("a\nb\nc\n", "a\nc\n", id="delete-middle"),
        pytest.param("a\nb\nc\n", "c\nb\na\n", id="reverse"),
    ],
)
def test_diff_lines_hunks_rebuild_target(a: str, b: str) -> None:
    old, new = split_lines(a), split_lines(b)
    out: list[str] = []
    pos = 0
    for a1, a2, b1, b2 in diff_lines(old, new):
        out += old[pos:a1] + new[b1:b2]
        pos = a2
    assert "".join(out + old[pos:]) == b


def test_diff_falls_back_to_anchors_past_edit_cap() -> None:
    old = [f"{i}\n" for i in range(2000)]
    new = [f"{i}\n" if i % 3 else f"changed {i}\n" for i in range(2000)]
    hunks = diff_lines(old, new)
    assert len(hunks) == 667
    assert all(a2 - a1 == 1 for a1, a2, _, _ in hunks)


INSERTED = st.lists(
    st.sampled_from(["a", "b", "", "é😀", "x y", "<!-- m -->"]), max_size=6
)


@given(
    st.lists(st.sampled_from(["a", "b", "", "c", "é"]), max_size=8),
    st.data(),
    INSERTED,
    INSERTED,
)
@settings(max_examples=400, deadline=None)
def test_both_inserting_at_one_place_merges_as_the_crdt_does(
    base_lines: list[str],
    data: st.DataObject,
    ours_new: list[str],
    theirs_new: list[str],
) -> None:
    at = data.draw(st.integers(0, len(base_lines)))
    ending = data.draw(st.sampled_from(["\n", ""]))

    def text(lines: list[str]) -> str:
        return "\n".join(lines) + ending if lines else ""

    base = text(base_lines)
    ours = text(base_lines[:at] + ours_new + base_lines[at:])
    theirs = text(base_lines[:at] + theirs_new + base_lines[at:])
    with pytest.MonkeyPatch.context() as patch:  # every cluster through the CRDT
        patch.setattr(merge_module, "_inserted_at_one_place", lambda members: False)
        expected = merge_texts(base, ours, theirs).text
    assert merged(base, ours, theirs) == expected


def test_an_answer_and_a_follow_up_at_one_place_need_no_crdt() -> None:
    script = (
        "import sys\n"
        "from agent_doc.document.merge import merge_texts\n"
        "base = '<!-- agent:exchange -->\\nquestion\\n<!-- /agent:exchange -->\\n'\n"
        "ours = base.replace('question\\n', 'question\\nanswer 1\\nanswer 2\\n')\n"
        "theirs = base.replace('question\\n', 'question\\nfollow-up\\n')\n"
        "print(repr(merge_texts(base, ours, theirs).text))\n"
        "print('pycrdt._pycrdt' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    text, loaded = done.stdout.splitlines()
    assert text == repr(
        "<!-- agent:exchange -->\nquestion\nanswer 1\nanswer 2\nfollow-up\n"
        "<!-- /agent:exchange -->\n"
    )
    assert loaded == "False"  # the CRDT's native library was not even loaded
