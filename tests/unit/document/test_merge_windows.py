"""A large document merges window by window exactly as it merges line by line.

From :data:`agent_doc.document.merge.WINDOWS_FROM` characters on, the merge
takes the stretches all three texts share as they are and merges only windows
of lines around the edits (:func:`agent_doc.document._textwalk.merge_by_windows`).
These tests edit large documents on both sides, near and far from each other,
and compare with the line-by-line merge of the same texts.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import _textwalk
from agent_doc.document import merge as merge_module
from agent_doc.document.merge_utf8 import MergedUTF8
from agent_doc.document.merge_utf8 import merge_utf8_parts

FILLER = [
    "",
    "```python",
    "print('x')",
    "```",
    "- item",
    "same line",
    "<!-- agent:exchange -->",
]


def line_by_line(base: str, ours: str, theirs: str) -> str:
    """The merge without windows (as below :data:`merge_module.WINDOWS_FROM`)."""
    saved = merge_module.WINDOWS_FROM
    merge_module.WINDOWS_FROM = 1 << 62
    try:
        return merge_module.merge_texts(base, ours, theirs).text
    finally:
        merge_module.WINDOWS_FROM = saved


@st.composite
def large_edits(draw: st.DrawFn) -> tuple[str, str, str]:
    """A ~75 KB base whose lines repeat now and then, and two edited copies."""
    repeated = draw(st.sets(st.integers(0, 2999), max_size=400))
    base = [
        FILLER[i % len(FILLER)] if i in repeated else f"line {i} é😀 some prose"
        for i in range(3000)
    ]
    sides = []
    focus = draw(st.integers(0, len(base)))  # edits cluster here, or anywhere
    for who in "AU":
        lines = list(base)
        for k in range(draw(st.integers(0, 6))):
            near = draw(st.booleans())
            kind = draw(st.sampled_from(["insert", "delete", "replace", "type"]))
            if kind == "insert" or not lines:
                at = (
                    min(len(lines), max(0, focus + draw(st.integers(-4, 4))))
                    if near
                    else draw(st.integers(0, len(lines)))
                )
                text = draw(st.sampled_from([f"{who}{k}", *FILLER]))
                lines[at:at] = [text] * draw(st.integers(1, 3))
                continue
            pos = (
                min(len(lines) - 1, max(0, focus + draw(st.integers(-4, 4))))
                if near
                else draw(st.integers(0, len(lines) - 1))
            )
            if kind == "delete":
                del lines[pos : pos + draw(st.integers(1, 3))]
            elif kind == "replace":
                lines[pos] = f"{who}{k} replaced"
            else:
                col = draw(st.integers(0, len(lines[pos])))
                lines[pos] = lines[pos][:col] + f"{who}{k}" + lines[pos][col:]
        sides.append(lines)
    texts = ["".join(x + "\n" for x in lines) for lines in (base, *sides)]
    return texts[0], texts[1], texts[2]


@given(large_edits())
@settings(max_examples=150, deadline=None)
def test_windows_merge_like_the_whole_document(case: tuple[str, str, str]) -> None:
    base, ours, theirs = case
    assert len(base) >= merge_module.WINDOWS_FROM
    assert merge_module.merge_texts(base, ours, theirs).text == line_by_line(
        base, ours, theirs
    )


def merge_utf8(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """The merge's bytes, joined (``None`` when the text merge must do it)."""
    merged = merge_utf8_parts(base, ours, theirs)
    return None if merged is None else merged.join()


@given(large_edits())
@settings(max_examples=150, deadline=None)
def test_utf8_merge_gives_the_bytes_of_the_text_merge(
    case: tuple[str, str, str],
) -> None:
    base, ours, theirs = case
    merged = merge_utf8(base.encode(), ours.encode(), theirs.encode())
    assert merged == line_by_line(base, ours, theirs).encode()


def test_utf8_merge_leaves_small_or_unterminated_texts_to_the_text_merge() -> None:
    big = "".join(f"line {i} 😀\n" for i in range(9000)).encode()
    assert merge_utf8(b"a\n", b"a\nb\n", b"c\na\n") is None
    assert merge_utf8(big, big + b"ours\n", big + b"theirs") is None
    assert merge_utf8(big, big + b"ours\n", big) == big + b"ours\n"  # one side only
    assert merge_utf8(big, big, b"theirs\n" + big) == b"theirs\n" + big


@given(large_edits())
@settings(max_examples=100, deadline=None)
def test_text_hunks_rebuild_the_text(case: tuple[str, str, str]) -> None:
    base, _, theirs = case
    out = []
    pos = 0
    for b1, b2, t1, t2 in _textwalk.text_hunks(base, theirs):
        assert pos <= b1 <= b2
        assert b1 == 0 or base[b1 - 1] == "\n"
        out += [base[pos:b1], theirs[t1:t2]]
        pos = b2
    out.append(base[pos:])
    assert "".join(out) == theirs
    data, edited = base.encode(), theirs.encode()
    pieces, pos = [], 0
    for b1, b2, t1, t2 in _textwalk.text_hunks(data, edited):
        assert b1 == 0 or data[b1 - 1 : b1] == b"\n"
        pieces += [data[pos:b1], edited[t1:t2]]
        pos = b2
    assert b"".join([*pieces, data[pos:]]) == edited


@pytest.mark.parametrize("lines", [0, 1, 2, 5])
def test_edits_that_many_lines_apart_merge_in_one_or_two_windows(lines: int) -> None:
    base = "".join(f"line {i}\n" for i in range(9000))
    rows = base.splitlines(keepends=True)
    ours = "".join([*rows[:4000], "agent answer\n", *rows[4000:]])
    theirs = "".join([*rows[: 4000 + lines], "user typed\n", *rows[4000 + lines :]])
    merged = merge_module.merge_texts(base, ours, theirs).text
    assert merged == line_by_line(base, ours, theirs)
    assert merged.count("agent answer\n") == merged.count("user typed\n") == 1


LINES = st.lists(st.sampled_from(["a\n", "<!-- m -->\n", "é😀\n", "\n", "b m\n"]))


@given(LINES, st.lists(st.tuples(st.booleans(), LINES), max_size=6), st.data())
@settings(max_examples=300)
def test_the_merged_parts_answer_as_the_joined_text(
    base_lines: list[str], parts: list[tuple[bool, list[str]]], data: st.DataObject
) -> None:
    base = "".join(base_lines).encode()
    raw: list[bytes | range] = []
    for shared, lines in parts:  # a stretch of the base, or a merged window
        if shared:
            start = data.draw(st.integers(0, len(base_lines)))
            stop = data.draw(st.integers(start, len(base_lines)))
            lo = len("".join(base_lines[:start]).encode())
            raw.append(range(lo, lo + len("".join(base_lines[start:stop]).encode())))
        else:
            raw.append("".join(lines).encode())
    merged = MergedUTF8(base, raw)
    joined = b"".join(
        base[p.start : p.stop] if isinstance(p, range) else p for p in raw
    )
    assert merged.join() == joined
    assert b"".join(merged.pieces()) == joined
    assert merged.size == len(joined)
    size = data.draw(st.integers(0, len(joined) + 2))
    assert merged.head(size) == joined[:size]
    for sub in (b"<!-- m -->", b"m", "😀".encode()):
        assert merged.count(sub) == joined.count(sub)
    other = data.draw(
        st.sampled_from([joined, joined[:-1], joined + b"x", b"x" + joined[1:]])
    )
    assert merged.equals(other) == (other == joined)


def test_a_merge_s_parts_share_the_base_and_end_at_line_ends() -> None:
    base = "".join(f"line {i} é\n" for i in range(20_000))
    ours = base.replace("line 10 é\n", "line 10 ours\n") + "answer\n"
    theirs = base.replace("line 19000 é\n", "line 19000 theirs\n")
    merged = merge_utf8_parts(base.encode(), ours.encode(), theirs.encode())
    assert merged is not None
    assert merged.join().decode() == line_by_line(base, ours, theirs)
    assert any(isinstance(p, range) for p in merged.parts)  # shared, not copied
    for piece in merged.pieces():
        assert bytes(piece).endswith(b"\n")
