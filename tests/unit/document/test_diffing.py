"""Comment stripping (acceptance case 22) and snapshot → document diffs."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.diff import compute_diff
from agent_doc.document.diff import strip_comments

# -- strip_comments: acceptance case 22 ---------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "before\n<!-- a comment -->\nafter\n", "before\nafter\n", id="line"
        ),
        pytest.param(
            "before\n<!-- a\nmulti-line\ncomment -->\nafter\n",
            "before\nafter\n",
            id="multi-line",
        ),
        pytest.param("x\n[//]: # (a comment)\ny\n", "x\ny\n", id="link-ref"),
        pytest.param('x\n[//]: # "quoted"\ny\n', "x\ny\n", id="link-ref-quoted"),
        pytest.param("text <!-- note --> more\n", "text  more\n", id="inline"),
        pytest.param("text <!-- note -->  \nnext\n", "text\nnext\n", id="line-end"),
        pytest.param("text\t<!-- note -->", "text", id="eof-line-end"),
        pytest.param("<!-- lead --> text\n", " text\n", id="line-start-inline"),
        pytest.param("a\n<!-- last -->", "a\n", id="eof-no-newline"),
        pytest.param("a\n  <!-- indented -->  \nb\n", "a\nb\n", id="indented"),
        pytest.param("<!-- a --> <!-- b -->\nz\n", "z\n", id="two-on-a-line"),
        pytest.param("x<!-- a\n-->y\n", "xy\n", id="multi-line-inline"),
        pytest.param("keep <!-- unclosed\n", "keep <!-- unclosed\n", id="unclosed"),
        pytest.param(
            "a\n<!-- agent:boundary:0a1b2c3d -->\nb\n", "a\nb\n", id="boundary"
        ),
    ],
)
def test_strip_comments(text: str, expected: str) -> None:
    assert strip_comments(text) == expected


def test_agent_markers_are_kept_verbatim() -> None:
    text = (
        "<!-- agent:status -->\nok\n<!-- /agent:status -->\n"
        "<!-- agent:exchange patch=append max_lines=5 -->\nq\n"
        "<!-- note -->\n<!-- /agent:exchange -->\n"
    )
    assert strip_comments(text) == (
        "<!-- agent:status -->\nok\n<!-- /agent:status -->\n"
        "<!-- agent:exchange patch=append max_lines=5 -->\nq\n"
        "<!-- /agent:exchange -->\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("use `<!-- x -->` here\n", id="inline-code"),
        pytest.param("use ``a <!-- x --> ` b`` here\n", id="double-backticks"),
        pytest.param("```html\n<!-- x -->\n[//]: # (c)\n```\n", id="backtick-fence"),
        pytest.param("~~~\n<!-- x -->\n~~~\n", id="tilde-fence"),
        pytest.param("````\n```\n<!-- x -->\n````\n", id="long-fence"),
        pytest.param("```\n<!-- unclosed fence\n", id="unclosed-fence"),
    ],
)
def test_comments_in_code_are_kept(text: str) -> None:
    assert strip_comments(text) == text


def test_code_and_comments_mixed() -> None:
    text = "a <!-- gone --> `<!-- kept -->`\n```\n<!-- kept -->\n```\n<!-- gone -->\n"
    assert strip_comments(text) == "a  `<!-- kept -->`\n```\n<!-- kept -->\n```\n"


def test_text_without_comments_is_returned_unchanged() -> None:
    text = "# Title\n\nplain `code` text\n"
    assert strip_comments(text) is text


# -- compute_diff -------------------------------------------------------------


def test_equal_texts_give_none() -> None:
    assert compute_diff("a\nb\n", "a\nb\n") is None


def test_comment_only_changes_give_none() -> None:
    before = "# Doc\n\nQuestion?\n"
    after = (
        "# Doc\n<!-- my scratch\nnotes -->\n\nQuestion? <!-- hm -->\n[//]: # (todo)\n"
    )
    assert compute_diff(before, after) is None


def test_boundary_moves_give_none() -> None:
    before = "<!-- agent:exchange -->\nq\n<!-- agent:boundary:aaaaaaaa -->\n"
    after = "<!-- agent:exchange -->\n<!-- agent:boundary:bbbbbbbb -->\nq\n"
    assert (
        compute_diff(
            before + "<!-- /agent:exchange -->\n", after + "<!-- /agent:exchange -->\n"
        )
        is None
    )


def test_crlf_document_against_lf_snapshot_gives_none_and_output_has_no_cr() -> None:
    assert compute_diff("a\nb\n", "a\r\nb\r\n") is None
    diff = compute_diff("a\r\nb\r\n", "a\r\nc\r\n")
    assert diff is not None
    assert "\r" not in diff
    assert diff == "--- snapshot\n+++ document\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"


def test_missing_snapshot_diffs_the_whole_document() -> None:
    assert compute_diff("", "one\ntwo\n") == (
        "--- snapshot\n+++ document\n@@ -0,0 +1,2 @@\n+one\n+two\n"
    )


def test_five_lines_of_context_and_line_numbers() -> None:
    old = [f"line {i}\n" for i in range(1, 41)]
    new = list(old)
    new[19] = "changed 20\n"
    diff = compute_diff("".join(old), "".join(new))
    assert diff is not None
    lines = diff.splitlines()
    assert lines[:3] == ["--- snapshot", "+++ document", "@@ -15,11 +15,11 @@"]
    assert lines[3:8] == [f" line {i}" for i in range(15, 20)]
    assert lines[8:10] == ["-line 20", "+changed 20"]
    assert lines[10:] == [f" line {i}" for i in range(21, 26)]


def test_context_radius_is_configurable() -> None:
    old = "".join(f"{i}\n" for i in range(10))
    new = old.replace("5\n", "five\n")
    diff = compute_diff(old, new, context=1)
    assert diff == "--- snapshot\n+++ document\n@@ -5,3 +5,3 @@\n 4\n-5\n+five\n 6\n"


def test_separate_hunks_keep_absolute_line_numbers() -> None:
    old = "".join(f"{i}\n" for i in range(1, 101))
    new = old.replace("30\n", "thirty\n").replace("80\n", "eighty\n")
    diff = compute_diff(old, new)
    assert diff is not None
    assert re.findall(r"^@@ .* @@$", diff, re.M) == [
        "@@ -25,11 +25,11 @@",
        "@@ -75,11 +75,11 @@",
    ]


def test_missing_final_newline_is_marked() -> None:
    diff = compute_diff("x\ny", "x\nz")
    assert diff == (
        "--- snapshot\n+++ document\n@@ -1,2 +1,2 @@\n x\n-y\n"
        "\\ No newline at end of file\n+z\n\\ No newline at end of file\n"
    )


def test_diff_ignores_comment_and_shows_real_change() -> None:
    old = "# Doc\n\nHello\n"
    new = "# Doc\n<!-- note -->\n\nHello\nWorld `<!-- code -->`\n"
    diff = compute_diff(old, new)
    assert diff == (
        "--- snapshot\n+++ document\n@@ -1,3 +1,4 @@\n # Doc\n \n Hello\n"
        "+World `<!-- code -->`\n"
    )


def _apply(old: str, diff: str) -> str:
    """Apply a unified diff (as compute_diff writes it) to ``old``."""
    src = old.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    lines = diff.splitlines(keepends=True)[2:]
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", lines[i])
        assert m, lines[i]
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out.extend(src[pos:start])
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, body = lines[i][0], lines[i][1:]
            if i + 1 < len(lines) and lines[i + 1].startswith("\\"):
                body = body[:-1]
                i += 1
            if tag in " -":
                assert src[pos] == body
                pos += 1
            if tag in " +":
                out.append(body)
            i += 1
    out.extend(src[pos:])
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d"]), max_size=40),
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d"]), max_size=40),
    st.integers(min_value=0, max_value=6),
)
def test_diff_applies_back_to_the_document(
    old_lines: list[str], new_lines: list[str], context: int
) -> None:
    old = "".join(old_lines)
    new = "".join(new_lines)
    diff = compute_diff(old, new, context=context)
    if old == new:
        assert diff is None
    else:
        assert diff is not None
        assert _apply(old, diff) == new


def test_one_megabyte_document_diffs_fast() -> None:
    block = (
        "## Section\n\nSome prose that goes on for a while, as prose does.\n"
        "Another line with `code` in it.\n\n- item\n- item\n\n"
        "```py\nx = 1\n```\n\n"
    )
    doc = ("<!-- note -->\n" + block * 20) * (1_000_000 // (len(block) * 20 + 14))
    assert len(doc) > 900_000
    middle = len(doc) // 2
    middle = doc.index("\n", middle) + 1
    changed = doc[:middle] + "A new line.\n" + doc[middle:]
    diff = compute_diff(doc, changed)  # its speed: bench/bench_cli.py
    assert diff is not None
    assert diff.count("\n+") == 2  # the "+++ document" header and the new line
    assert "+A new line.\n" in diff
