"""The one text-edit algorithm (agent_doc.document.textedit): the edits a
shared room, an open editor buffer and the CRDT merge get."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_doc.document.textedit import common_ends
from agent_doc.document.textedit import edit_ops
from agent_doc.document.textedit import single_op
from agent_doc.document.textedit import trimmed_op
from agent_doc.write.live import TextChange
from agent_doc.write.live import minimal_changes


def _apply(text: str, ops: list[tuple[int, int, str]]) -> str:
    for start, end, insert in reversed(ops):
        text = text[:start] + insert + text[end:]
    return text


def test_lines_added_beside_a_line_being_typed_in_never_replace_it() -> None:
    """Found by tests/editors/test_shared_editors.py: one person typed at the
    start of a line, the answer added lines after it; the edit to the other
    person's buffer replaced their line whole, and their cursor (at its end)
    went with the replacement, below the answer."""
    buffer = "## User\n\nWhat is 6 x 7? Alice wants \n<!-- /agent:exchange -->\n"
    room = buffer.replace("What", "Quick one from Bob: What").replace(
        "wants \n", "wants \n\n### Answer\n<!-- agent:boundary:8a8b99da -->\n"
    )
    line_end = buffer.index(" \n") + 2
    assert edit_ops(buffer, room) == [
        (9, 9, "Quick one from Bob: "),
        (line_end, line_end, "\n### Answer\n<!-- agent:boundary:8a8b99da -->\n"),
    ]


@pytest.mark.parametrize("alphabet", ["ab\n x", "a\n", "abc \n\n"])
def test_edit_ops_are_ascending_and_turn_one_text_into_the_other(
    alphabet: str,
) -> None:
    rng = random.Random(alphabet)
    for _ in range(500):
        old = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        new = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        ops = edit_ops(old, new)
        ends = [0] + [end for _start, end, _text in ops]
        assert all(op[0] >= end for op, end in zip(ops, ends, strict=False))
        text = old
        for start, end, insert in reversed(ops):
            text = text[:start] + insert + text[end:]
        assert text == new, (old, new, ops)


def test_a_buffer_write_gets_the_character_edits_a_room_gets() -> None:
    """Buffer writes used to replace a region of added lines by its differing
    middle: the person's half-typed line went out and came back in."""
    buffer = "## User\n\nWhat is 6 x 7? Alice wants \n<!-- /agent:exchange -->\n"
    merged = buffer.replace("What", "Quick: What").replace(
        "wants \n", "wants \n\n### Answer\n42\n"
    )
    line_end = buffer.index(" \n") + 2
    assert minimal_changes(buffer, merged) == (
        TextChange(9, 9, "Quick: "),
        TextChange(line_end, line_end, "\n### Answer\n42\n"),
    )


CRLF_TEXT = st.text(alphabet="ab\r\n x", max_size=30)


@given(CRLF_TEXT, CRLF_TEXT)
def test_no_edit_starts_or_ends_inside_a_crlf_pair(old: str, new: str) -> None:
    ops = edit_ops(old, new)
    assert _apply(old, ops) == new
    for start, end, _insert in ops:
        for at in (start, end):
            assert not (0 < at < len(old) and old[at - 1 : at + 1] == "\r\n"), ops
    for first, second in itertools.pairwise(ops):
        assert first[1] <= second[0]  # still disjoint, ascending


@given(CRLF_TEXT, CRLF_TEXT)
def test_the_single_edit_is_the_text_between_the_common_ends(
    old: str, new: str
) -> None:
    op = single_op(old, new)
    if old == new:
        assert op is None
        return
    assert op is not None
    assert _apply(old, [op]) == new
    pre, suf = common_ends(old, new)
    assert pre + suf <= min(len(old), len(new))
    assert op[0] >= pre - 1  # less one: a \r\n
    assert len(old) - op[1] >= suf - 1


@pytest.mark.parametrize(
    ("old", "new", "op"),
    [
        ("abcXYZdef", "abc12def", (3, 6, "12")),
        ("aaa", "aaaa", (3, 3, "a")),  # the ends never overlap
        ("same", "same", (4, 4, "")),
        ("", "new", (0, 0, "new")),
    ],
)
def test_trimmed_op_keeps_the_common_ends(
    old: str, new: str, op: tuple[int, int, str]
) -> None:
    assert trimmed_op(0, old, new) == op
    assert trimmed_op(10, old, new) == (op[0] + 10, op[1] + 10, op[2])
