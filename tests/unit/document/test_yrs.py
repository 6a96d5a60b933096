"""The merge's CRDT gives what a plain pycrdt replay gives.

* :func:`encode_text_state` (plain Python) is byte for byte pycrdt's encoding;
* :func:`merge_texts` merges exactly like the same replay written directly
  against the ``pycrdt`` package (the oracle below), on hypothesis-generated
  edits;
* a merge whose sides' edits do not meet imports neither ``pycrdt`` nor
  anyio/asyncio in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from pycrdt import Doc
from pycrdt import Text

from agent_doc.document import merge as merge_module
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.document.yrs_codec import utf8_in_state

TEXTS = st.text(
    alphabet=st.sampled_from([*"ab \n", "é", "😀", "日", "\r", "x"]),
    max_size=60,
)


def pycrdt_state(text: str, client_id: int = 3) -> bytes:
    doc: Doc[Any] = Doc(client_id=client_id)
    doc.get("content", type=Text).insert(0, text)
    return bytes(doc.get_update())


def pycrdt_merge(text: str, ours: list[Any], theirs: list[Any]) -> str:
    """``_crdt_merge`` as issue 12 left it, through the ``pycrdt`` package."""
    update = pycrdt_state(text)
    docs = []
    for client, ops in ((1, ours), (2, theirs)):
        doc: Doc[Any] = Doc(client_id=client)
        doc.apply_update(update)
        shared = doc.get("content", type=Text)
        shift = 0
        with doc.transaction():
            for start, end, insert in merge_module._byte_ops(text, ops):
                at, size = start + shift, len(insert.encode("utf-8"))
                if insert:
                    shared.insert(at, insert)
                if end > start:
                    del shared[at + size : at + size + end - start]
                shift += size - (end - start)
        docs.append(doc)
    agent, user = docs
    agent.apply_update(user.get_update(agent.get_state()))
    return str(agent.get("content", type=Text))


@given(TEXTS)
@settings(max_examples=200, deadline=None)
def test_state_encoding_is_byte_identical_to_pycrdt(text: str) -> None:
    assert encode_text_state(text) == pycrdt_state(text)


def test_state_encoding_of_long_text_uses_multi_byte_lengths() -> None:
    text = "x" * 70_000 + "😀" * 300
    assert encode_text_state(text) == pycrdt_state(text)


LINES = st.lists(TEXTS.map(lambda s: s.replace("\n", "")), min_size=0, max_size=8)


@given(LINES, LINES, LINES)
@settings(max_examples=300, deadline=None)
def test_merge_equals_a_plain_pycrdt_replay(
    base: list[str], ours: list[str], theirs: list[str]
) -> None:
    calls: list[tuple[str, list[Any], list[Any]]] = []
    real = merge_module._crdt_merge

    def spy(text: str, a: list[Any], b: list[Any], state: bytes | None) -> str:
        calls.append((text, a, b))
        return real(text, a, b, state)

    merge_module._crdt_merge = spy  # type: ignore[assignment]
    try:
        join = "".join
        result = merge_module.merge_texts(
            join(x + "\n" for x in base),
            join(x + "\n" for x in base[:2] + ours + base[2:]),
            join(x + "\n" for x in theirs[:1] + base[1:] + theirs[1:]),
        )
    finally:
        merge_module._crdt_merge = real  # type: ignore[assignment]
    for text, a, b in calls:
        assert real(text, a, b, None) == pycrdt_merge(text, a, b)
    assert result.state == pycrdt_state(result.text)


def test_a_merge_imports_neither_pycrdt_nor_asyncio() -> None:
    code = (
        "import sys\n"
        "from agent_doc.document.merge import merge_texts\n"
        "r = merge_texts('a\\nb\\n', 'a\\nA\\nb\\n', 'a\\nb\\nU\\n')\n"
        "assert r.text == 'a\\nA\\nb\\nU\\n', r.text\n"
        "bad = [m for m in ('pycrdt', 'anyio', 'asyncio') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


@st.composite
def two_sided_edits(draw: st.DrawFn) -> tuple[str, str, str]:
    """A base and two sides that each insert, delete, replace or type in lines,
    often in the same or neighbouring lines."""
    words = st.sampled_from(["a", "b", "é", "😀", "日", " ", "", "x y"])
    base = [
        f"{i}" + "".join(draw(st.lists(words, max_size=3)))
        for i in range(draw(st.integers(0, 10)))
    ]
    sides = []
    for who in "AU":
        lines = list(base)
        for k in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(["insert", "delete", "replace", "type"]))
            if kind == "insert" or not lines:
                lines.insert(draw(st.integers(0, len(lines))), f"{who}{k}")
                continue
            pos = draw(st.integers(0, len(lines) - 1))
            if kind == "delete":
                del lines[pos]
            elif kind == "replace":
                lines[pos] = f"{who}{k}" + draw(words)
            else:
                col = draw(st.integers(0, len(lines[pos])))
                lines[pos] = lines[pos][:col] + f"{who}{k}" + lines[pos][col:]
        sides.append(lines)
    join = "".join
    return (
        join(x + "\n" for x in base),
        join(x + "\n" for x in sides[0]),
        join(x + "\n" for x in sides[1]),
    )


@given(two_sided_edits())
@settings(max_examples=500, deadline=None)
def test_merge_equals_one_crdt_replay_of_the_whole_document(
    case: tuple[str, str, str],
) -> None:
    """Merging only where the sides meet gives what replaying every edit of
    both sides on one CRDT document of the whole text gives."""
    base, ours, theirs = case
    result = merge_module.merge_texts(base, ours, theirs).text
    if ours in (theirs, base) or theirs == base:
        return
    assert result == pycrdt_merge(*merge_module.plan_ops(base, ours, theirs))


def test_nearby_edits_of_both_sides_merge_like_the_whole_document() -> None:
    base = "".join(f"line {i} é😀\n" for i in range(50))
    lines = base.splitlines(keepends=True)
    ours = "".join([*lines[:10], "agent\n", *lines[10:30], *lines[31:]])
    theirs = "".join(
        [*lines[:9], "user typed\n", *lines[9:30], "x" + lines[30], *lines[31:]]
    )
    result = merge_module.merge_texts(base, ours, theirs).text
    assert result == pycrdt_merge(*merge_module.plan_ops(base, ours, theirs))
    assert result.count("agent\n") == 1
    assert "user typed\n" in result


@given(TEXTS, TEXTS, TEXTS, st.booleans())
@settings(max_examples=400, deadline=None)
def test_lines_shared_with_the_base_are_the_lines_of_the_text(
    head: str, middle: str, tail: str, sentinel: bool
) -> None:
    """Taking the lines a text shares with the base from the base's lines
    gives exactly the text's own lines."""
    base = head + "base\n" + tail
    text = head + middle + tail
    if not sentinel:
        base, text = base + "\n", text + "\n"
    base_lines = merge_module._lines(base, sentinel)
    shared = merge_module._lines(text, sentinel, base, base_lines)
    assert shared == merge_module._lines(text, sentinel)


@given(TEXTS)
@settings(max_examples=200, deadline=None)
def test_the_text_inside_a_state_is_its_utf8(text: str) -> None:
    state = encode_text_state(text)
    assert bytes(utf8_in_state(state)) == text.encode("utf-8")


@st.composite
def edited_lines(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Base lines (many alike, so anchors can mislead) and an edited copy."""
    line = st.sampled_from(["", "a", "a", "b", "x y", "é😀", "a" * 70, "a" * 70 + "b"])
    base = draw(st.lists(line, max_size=40))
    text = list(base)
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        if kind == "insert" or not text:
            text.insert(draw(st.integers(0, len(text))), draw(line))
        elif kind == "delete":
            del text[draw(st.integers(0, len(text) - 1))]
        else:
            text[draw(st.integers(0, len(text) - 1))] = draw(line)
    return base, text


@given(edited_lines(), st.booleans(), st.booleans())
@settings(max_examples=500, deadline=None)
def test_lines_walked_against_the_base_are_the_lines_of_the_text(
    case: tuple[list[str], list[str]], sentinel: bool, cut_last: bool
) -> None:
    """Scattered edits: runs of lines equal to the base's come from the base's
    lines, the rest is split; together exactly the text's own lines."""
    base_list, text_list = case
    base, text = "\n".join(base_list) + "\n", "\n".join(text_list) + "\n"
    if sentinel and cut_last:  # an unterminated last line
        base, text = base[:-1], text[:-1]
    elif sentinel:
        text = text[:-1]
    base_lines = merge_module._lines(base, sentinel)
    walked = merge_module._lines(text, sentinel, base, base_lines)
    assert walked == merge_module._lines(text, sentinel)


def test_a_long_document_with_scattered_edits_shares_most_lines() -> None:
    base_list = [f"line {i} é😀" for i in range(3000)]
    text_list = list(base_list)
    for k in range(20):
        text_list[100 + k * 140] = f"edited {k}"
        text_list.insert(150 + k * 140, f"typed {k}")
    base, text = "\n".join(base_list) + "\n", "\n".join(text_list) + "\n"
    base_lines = merge_module._lines(base, False)
    walked = merge_module._lines(text, False, base, base_lines)
    assert walked == text.split("\n")[:-1]
    shared = {id(x) for x in base_lines}
    assert sum(id(x) in shared for x in walked) >= len(walked) - 40


def test_a_text_edited_on_most_lines_is_split_whole_and_right() -> None:
    """Past the search budget the walk stops and the rest is split as it is."""
    base_list = [f"line {i} é😀 a word here" for i in range(6000)]
    text_list = [
        x.replace("word", "WORD") if i % 3 else x for i, x in enumerate(base_list)
    ]
    base, text = "\n".join(base_list) + "\n", "\n".join(text_list) + "\n"
    base_lines = merge_module._lines(base, False)
    assert merge_module._lines(text, False, base, base_lines) == text_list
