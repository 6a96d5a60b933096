"""agent_doc.editor.unsent: what the next diff carries, marked in the live text."""

from __future__ import annotations

from agent_doc.document.diff import compute_diff
from agent_doc.editor.unsent import unsent_changes

SNAP = "a\nb\nc\n<!-- agent:exchange -->\nx\n<!-- /agent:exchange -->\n"


def _marked(text: str, summary) -> list[tuple[str, str]]:
    return [(m.code, text[m.start : m.end]) for m in summary.marks]


def test_no_snapshot_marks_nothing_and_keeps_plain_submit():
    summary = unsent_changes(None, SNAP)
    assert summary.marks == ()
    assert summary.lens_title() == "Submit"


def test_changed_lines_are_one_region_each_hunk():
    cur = SNAP.replace("b\n", "B\nnew\n").replace("x\n", "x\ny\n")
    summary = unsent_changes(SNAP, cur)
    assert _marked(cur, summary) == [("unsent", "B\nnew"), ("unsent", "y")]
    assert summary.lens_title() == "Submit · 2 changes (+3 −1 lines)"


def test_counts_match_the_diff_the_agent_receives():
    cur = SNAP.replace("a\n", "").replace("c\n", "c\nC1\nC2\n") + "tail\n"
    summary = unsent_changes(SNAP, cur)
    diff = compute_diff(SNAP, cur, context=0) or ""
    body = [ln for ln in diff.splitlines() if ln[:3] not in ("---", "+++")]
    assert summary.added == sum(1 for ln in body if ln.startswith("+"))
    assert summary.removed == sum(1 for ln in body if ln.startswith("-"))
    assert summary.changes == sum(1 for ln in body if ln.startswith("@@"))


def test_typed_comment_is_private_and_sends_nothing():
    cur = SNAP.replace("x\n", "x\n<!-- only for me -->\n")
    summary = unsent_changes(SNAP, cur)
    assert _marked(cur, summary) == [("private", "<!-- only for me -->")]
    assert summary.lens_title() == "Submit · nothing new"


def test_comment_in_code_is_content_and_is_sent():
    cur = SNAP.replace("x\n", "x\n`<!-- shown -->`\n")
    assert _marked(cur, unsent_changes(SNAP, cur)) == [("unsent", "`<!-- shown -->`")]


def test_replacing_text_by_a_comment_is_a_removal():
    cur = SNAP.replace("x\n", "<!-- x -->\n")
    summary = unsent_changes(SNAP, cur)
    assert [m.message for m in summary.marks] == [
        "will be sent: 1 line removed here",
        "private, not sent",
    ]
    assert summary.lens_title() == "Submit · 1 change (+0 −1 lines)"


def test_crlf_buffer_offsets_point_into_the_raw_text():
    cur = SNAP.replace("b\n", "b\nnew\n").replace("\n", "\r\n")
    summary = unsent_changes(SNAP, cur)
    assert _marked(cur, summary) == [("unsent", "new\r")]


def test_a_moved_boundary_next_to_typed_text_is_not_marked():
    snap = SNAP.replace("x\n", "x\n<!-- agent:boundary:aaaaaaaa -->\n")
    cur = SNAP.replace("x\n", "x\n<!-- agent:boundary:bbbbbbbb -->\ntyped\n")
    assert _marked(cur, unsent_changes(snap, cur)) == [("unsent", "typed")]


def test_emptying_the_document_marks_the_removal_at_its_start():
    summary = unsent_changes(SNAP, "")
    assert [(m.start, m.end, m.message) for m in summary.marks] == [
        (0, 0, "will be sent: 6 lines removed here")
    ]
