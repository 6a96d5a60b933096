"""The smallest Yjs edits, and a person's change rebased onto the room's text."""

from __future__ import annotations

import random

import pytest

from agent_doc.share.textedit import edit_ops
from agent_doc.share.textedit import rebase

LINE = "## User\n\nWhat is 6 x 7?\n<!-- /agent:exchange -->\n"


def test_typing_at_a_line_start_keeps_its_place_beside_the_room_typing_at_its_end() -> (
    None
):
    """Two people on one line (found by tests/editors/test_shared_editors.py):
    a line-based merge replaced the line whole, and the other person's text at
    its end was pushed past the newline."""
    mine = LINE.replace("What", "Quick oWhat")
    room = LINE.replace("7?", "7? Alice")
    assert rebase(LINE, mine, room) == LINE.replace(
        "What is 6 x 7?", "Quick oWhat is 6 x 7? Alice"
    )


@pytest.mark.parametrize(
    ("old", "new", "current", "wanted"),
    [
        pytest.param("ab\n", "aXb\n", "ab\n", "aXb\n", id="room-unchanged"),
        pytest.param("ab\n", "ab\n", "aYb\n", "aYb\n", id="nothing-typed"),
        pytest.param("ab\n", "aXb\n", "aYb\n", "aYXb\n", id="same-spot-room-first"),
        pytest.param(
            "ab\ncd\n", "abX\ncd\n", "ab\nYcd\n", "abX\nYcd\n", id="around-a-newline"
        ),
        pytest.param(
            "héllo\n", "héllo wörld\n", "ÀBhéllo\n", "ÀBhéllo wörld\n", id="utf-8"
        ),
        pytest.param(
            "one two\n", "one\n", "one two three\n", "one three\n", id="delete"
        ),
    ],
)
def test_rebase_replays_both_changes_character_by_character(
    old: str, new: str, current: str, wanted: str
) -> None:
    assert rebase(old, new, current) == wanted


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
