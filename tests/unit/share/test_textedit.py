"""A person's change rebased onto the room's text (the edits themselves:
tests/unit/document/test_textedit.py)."""

from __future__ import annotations

import pytest

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
