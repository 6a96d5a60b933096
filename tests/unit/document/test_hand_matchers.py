"""Checks written by hand instead of compiled patterns (a per-turn command
compiles none it can avoid): each must answer exactly as its pattern does."""

from __future__ import annotations

import json
import re

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import codeblocks
from agent_doc.document.apply import _is_heading
from agent_doc.document.components import ATTR_RE
from agent_doc.document.components import NAME_RE
from agent_doc.document.components import _parse_attrs
from agent_doc.document.components import is_valid_name
from agent_doc.document.frontmatter import _plain_entry
from agent_doc.document.frontmatter_text import _continues
from agent_doc.document.frontmatter_text import key_at
from agent_doc.store.events import check_event_name
from agent_doc.store.events import json_string

# Characters that matter to the patterns, plus some that must not: other
# whitespace (NBSP, NEL, ideographic space), non-ASCII letters and digits.
ALPHABET = "aZ_9-=:\"' \t\r\n#`~<!->/xé١\u00a0\u0085\u30000123456789abcdefABCDEF"
texts = st.text(alphabet=ALPHABET, max_size=40)
lines = st.text(alphabet=ALPHABET.replace("\n", ""), max_size=40)
UUID = "0123abcd-4567-89ab-cdef-0123456789ab"


@given(lines)
@example("session: " + UUID)
@example("agent_doc_session: abc-def_1  ")
@example("key:")
@example("key:  ")
@example("k: 0123abcd-4567-89ab-cdef-0123456789a")  # one digit short
@example("k: 0-23abcd-4567-89ab-cdef-0123456789ab")
@example("_: x")
@example("9k: x")
@settings(max_examples=400)
def test_plain_frontmatter_line(line: str) -> None:
    uuid = r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}"
    word = r"[A-Za-z][A-Za-z0-9_-]*"
    pattern = re.compile(rf"([A-Za-z_][A-Za-z0-9_]*):(?: +({word}|{uuid}))? *")
    match = pattern.fullmatch(line)
    expected = None if match is None else (match.group(1), match.group(2))
    assert _plain_entry(line) == expected


@given(lines)
@example("key :x")
@example("key\t: x")
@example("a-b:")
@example("a:\r")
@example("-a: x")
@settings(max_examples=400)
def test_frontmatter_key_line(line: str) -> None:
    pattern = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?=[ \t\r\n]|$)")
    match = pattern.match(line)
    expected = None if match is None else (match.group(1), match.end())
    assert key_at(line) == expected


@given(lines)
@example("-")
@example("- x")
@example("-x")
@example("\tx")
def test_frontmatter_continuation_line(line: str) -> None:
    pattern = re.compile(r"[ \t]|-(?=[ \t]|$)")
    assert _continues(line) == (pattern.match(line) is not None)


@given(lines)
@example("exchange")
@example("a-")
@example("-a")
@example("é")
def test_component_name(name: str) -> None:
    assert is_valid_name(name) == (re.fullmatch(NAME_RE, name) is not None)


@given(lines)
@example("   # x")
@example("    # x")
@example("######")
@example("#######")
@example("#\tx")
@example("#x")
def test_heading_line(line: str) -> None:
    pattern = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
    assert _is_heading(line) == (pattern.match(line) is not None)


@given(texts)
@example(" a=\"x y\" b='z' c=1")
@example("1a=b a==b a= b =x")
@example('a="open b=1')
@example("a=b\u00a0c d=e")
@example('a="b"c=d')
@example("a=b=c")
@example("é=1 k=v -x=2")
@settings(max_examples=600)
def test_marker_attributes(raw: str) -> None:
    pattern = re.compile(ATTR_RE)
    expected = tuple(
        (m.group(1), next(g for g in m.groups()[1:] if g is not None))
        for m in pattern.finditer(raw)
    )
    assert _parse_attrs(raw) == expected


@given(st.text(max_size=30))
@example('"\\\b\f\n\r\t\x00\x1f\x7f é 😀 \ud800')
def test_json_string(text: str) -> None:
    assert json_string(text) == json.dumps(text, ensure_ascii=False)


def test_own_event_names_are_valid_names() -> None:
    pattern = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    for name in ("post_write", "post_commit"):
        assert check_event_name(name) == name
        assert pattern.match(name)


@given(st.text(alphabet="` ~<!->x\n", max_size=30), st.data())
@example("```x\ncode\n", None)
@example("   ~~~\nx\n", None)
@example("<!-- open\nx\n", None)
@example("<!-- closed -->\n", None)
@example("```a`b\n", None)
@settings(max_examples=600)
def test_block_opener_on_a_line(text: str, data: st.DataObject | None) -> None:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    start = 0 if data is None else data.draw(st.sampled_from(starts))
    pattern = re.compile(codeblocks._BLOCK_OPEN_BODY)
    match = pattern.match(text, start)
    expected = (
        None if match is None else (match.group(1) or match.group(2) or "", match.end())
    )
    assert codeblocks._opener_at(text, start) == expected
