"""Boundary marker lifecycle pieces (spec §7.22, upstream cases 8–11)."""

from __future__ import annotations

import re

from agent_doc.document.boundary import BOUNDARY_PREFIX
from agent_doc.document.boundary import boundary_marker
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.boundary import insert_boundary_at_end_of_exchange
from agent_doc.document.boundary import new_boundary_id
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.boundary import reposition_boundary_before_close
from agent_doc.document.boundary import reposition_boundary_to_end

HEX8 = re.compile(r"[0-9a-f]{8}")


def test_ids_are_8_lowercase_hex_and_fresh() -> None:
    ids = {new_boundary_id() for _ in range(200)}
    assert all(HEX8.fullmatch(i) for i in ids)
    assert len(ids) == 200
    assert boundary_marker("abcd1234") == "<!-- agent:boundary:abcd1234 -->"
    assert boundary_marker("x").startswith(BOUNDARY_PREFIX)


def test_find_boundaries_reports_lines_and_ids() -> None:
    text = "a\n<!-- agent:boundary:test-uuid-123 -->\nb\n  <!-- agent:boundary:ff00ff00 -->"
    found = find_boundaries(text)
    lines = [text.count("\n", 0, b.start) for b in found]
    assert [(b.id, line) for b, line in zip(found, lines, strict=True)] == [
        ("test-uuid-123", 1),
        ("ff00ff00", 3),
    ]
    assert (
        text[found[0].start : found[0].end] == "<!-- agent:boundary:test-uuid-123 -->\n"
    )
    assert found[1].end == len(text)


def test_cleanup_keeps_markers_in_code() -> None:
    # Upstream acceptance case 10.
    text = (
        "before\n```\n<!-- agent:boundary:fake-id -->\n```\nafter\n"
        "<!-- agent:boundary:real-id -->\nend\n"
    )
    assert [b.id for b in find_boundaries(text)] == ["real-id"]
    assert remove_all_boundaries(text) == (
        "before\n```\n<!-- agent:boundary:fake-id -->\n```\nafter\nend\n"
    )


def test_cleanup_ignores_tilde_fences_and_inline_code() -> None:
    text = "~~~~\n<!-- agent:boundary:a -->\n~~~~\nsee `<!-- agent:boundary:b -->` x\n"
    assert find_boundaries(text) == []
    assert remove_all_boundaries(text) == text


def test_marker_must_be_alone_on_its_line() -> None:
    text = "text <!-- agent:boundary:abc --> more\n"
    assert find_boundaries(text) == []


def test_remove_all_boundaries_everywhere() -> None:
    text = (
        "<!-- agent:boundary:a1 -->\n<!-- agent:exchange -->\nq\n"
        "<!-- agent:boundary:b2 -->\n<!-- /agent:exchange -->\n<!-- agent:boundary:c3 -->"
    )
    assert remove_all_boundaries(text) == (
        "<!-- agent:exchange -->\nq\n<!-- /agent:exchange -->\n"
    )


def test_insert_at_end_of_exchange() -> None:
    text = "<!-- agent:exchange -->\nUser prompt here.\n\n\n<!-- /agent:exchange -->\n"
    out = insert_boundary_at_end_of_exchange(text, "0123abcd")
    assert out == (
        "<!-- agent:exchange -->\nUser prompt here.\n"
        "<!-- agent:boundary:0123abcd -->\n<!-- /agent:exchange -->\n"
    )


def test_insert_mints_an_id_when_none_given() -> None:
    text = "<!-- agent:exchange -->\nq\n<!-- /agent:exchange -->\n"
    [b] = find_boundaries(insert_boundary_at_end_of_exchange(text))
    assert HEX8.fullmatch(b.id)


def test_reposition_moves_boundary_after_user_prompt() -> None:
    # Upstream acceptance case 11.
    text = (
        "# Doc\n<!-- agent:exchange -->\nPrevious response.\n"
        "<!-- agent:boundary:old-id -->\nUser prompt here.\n<!-- /agent:exchange -->\n"
    )
    out = reposition_boundary_to_end(text, "feedbeef")
    assert "old-id" not in out
    assert out == (
        "# Doc\n<!-- agent:exchange -->\nPrevious response.\nUser prompt here.\n"
        "<!-- agent:boundary:feedbeef -->\n<!-- /agent:exchange -->\n"
    )
    [b] = find_boundaries(out)
    assert out.index("User prompt") < b.start < out.index("<!-- /agent:exchange")


def test_reposition_without_exchange_is_unchanged() -> None:
    text = "<!-- agent:output -->\nresult\n<!-- /agent:output -->\n"
    assert reposition_boundary_to_end(text) == text
    assert insert_boundary_at_end_of_exchange(text) == text


def test_reposition_twice_leaves_exactly_one_boundary() -> None:
    # Upstream acceptance cases 8/9: never lost, never doubled.
    text = (
        "<!-- agent:exchange -->\nUser prompt here.\n"
        "<!-- agent:boundary:test-uuid-123 -->\n<!-- /agent:exchange -->\n"
    )
    once = reposition_boundary_to_end(text)
    twice = reposition_boundary_to_end(once + "<!-- agent:boundary:stray -->\n")
    assert len(find_boundaries(once)) == 1
    assert len(find_boundaries(twice)) == 1
    assert [b.id for b in find_boundaries(twice)] == ["test-uuid-123"]


def test_a_boundary_that_does_not_move_keeps_its_id() -> None:
    # Issue 27: a new random id on every commit made every commit a change.
    text = (
        "<!-- agent:exchange -->\nUser prompt here.\n"
        "<!-- agent:boundary:1a2b3c4d -->\n<!-- /agent:exchange -->\n"
    )
    assert reposition_boundary_to_end(text) == text
    moved = (
        text.replace("here.\n", "here.\nTyped below.\n", 1)
        .replace("<!-- agent:boundary:1a2b3c4d -->\n", "")
        .replace("User prompt", "<!-- agent:boundary:1a2b3c4d -->\nUser prompt")
    )
    again = reposition_boundary_to_end(moved)
    assert [b.id for b in find_boundaries(again)] == ["1a2b3c4d"]
    assert again.index("Typed below.") < find_boundaries(again)[0].start
    assert reposition_boundary_to_end(moved, "ffffffff").count("ffffffff") == 1


def test_reposition_keeps_boundary_examples_inside_exchange_code() -> None:
    text = (
        "<!-- agent:exchange -->\n```\n<!-- agent:boundary:example -->\n```\n"
        "ask\n<!-- /agent:exchange -->\n"
    )
    out = reposition_boundary_to_end(text, "12345678")
    assert "<!-- agent:boundary:example -->" in out
    assert [b.id for b in find_boundaries(out)] == ["12345678"]


def test_non_ascii_text_and_empty_document() -> None:
    text = "<!-- agent:exchange -->\n日本語 🎉\n<!-- agent:boundary:x -->\n<!-- /agent:exchange -->"
    out = reposition_boundary_to_end(text, "aaaaaaaa")
    assert out == (
        "<!-- agent:exchange -->\n日本語 🎉\n<!-- agent:boundary:aaaaaaaa -->\n"
        "<!-- /agent:exchange -->"
    )
    assert remove_all_boundaries("") == ""
    assert reposition_boundary_to_end("") == ""


def test_reposition_before_close_keeps_the_blank_line_being_typed_on() -> None:
    # A live buffer: the person opened a line at the end of the exchange and
    # is about to type there; the marker goes below it, never onto it.
    text = (
        "<!-- agent:exchange -->\nQ?\n<!-- agent:boundary:old-id -->\n\n"
        "<!-- /agent:exchange -->\n"
    )
    out = reposition_boundary_before_close(text)
    assert out == (
        "<!-- agent:exchange -->\nQ?\n\n<!-- agent:boundary:old-id -->\n"
        "<!-- /agent:exchange -->\n"
    )
    assert reposition_boundary_before_close(out) == out  # in place: no edit
    assert reposition_boundary_to_end(out) != out  # the file form trims it


def test_reposition_before_close_new_marker_and_odd_layouts() -> None:
    fresh = reposition_boundary_before_close(
        "<!-- agent:exchange -->\n<!-- /agent:exchange -->\n"
    )
    [b] = find_boundaries(fresh)
    assert HEX8.fullmatch(b.id)
    assert fresh.startswith("<!-- agent:exchange -->\n<!-- agent:boundary:")
    inline = reposition_boundary_before_close(
        "<!-- agent:exchange -->\nQ?<!-- /agent:exchange -->\n"
    )
    assert inline.split("\n")[1:3] == [
        "Q?",
        boundary_marker(find_boundaries(inline)[0].id),
    ]
    stray = (
        "<!-- agent:output -->\nx\n<!-- agent:boundary:ab -->\n<!-- /agent:output -->\n"
    )
    assert reposition_boundary_before_close(stray) == remove_all_boundaries(stray)


def test_a_command_s_text_is_not_kept_after_its_boundaries_are_found() -> None:
    from agent_doc.document import boundary

    boundary._last.clear()
    text = "a\n<!-- agent:boundary:1234abcd -->\nb\n"
    assert [b.id for b in boundary.find_boundaries(text)] == ["1234abcd"]
    assert boundary._last == []  # no edit note: not a server's version
