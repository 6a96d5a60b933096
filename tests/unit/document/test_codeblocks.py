"""Code ranges: fenced blocks and inline code spans, checked against markdown-it."""

from __future__ import annotations

import itertools
import random

import pytest
from markdown_it import MarkdownIt

from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.codeblocks import code_ranges

MD = MarkdownIt("commonmark")


def pieces(text: str) -> list[str]:
    return [text[s:e] for s, e in code_ranges(text)]


def fence_lines(text: str) -> list[tuple[int, int]]:
    out = []
    for s, e in block_ranges(text)[0]:
        first = text.count("\n", 0, s)
        last = text.count("\n", 0, e)
        if e == len(text) and not text.endswith("\n") and text:
            last += 1
        out.append((first, last))
    return out


def oracle_fences(text: str) -> list[tuple[int, int]]:
    return [tuple(t.map) for t in MD.parse(text) if t.type == "fence"]  # type: ignore[misc]


def _normalise_span(raw: str) -> str:
    n = len(raw) - len(raw.lstrip("`"))
    body = raw[n:-n].replace("\n", " ")
    if body.startswith(" ") and body.endswith(" ") and body.strip(" "):
        body = body[1:-1]
    return body


def oracle_spans(text: str) -> list[str]:
    out = []
    for tok in MD.parse(text):
        for child in tok.children or []:
            if child.type == "code_inline":
                out.append(child.content)
    return out


def my_spans(text: str) -> list[str]:
    fences = set(block_ranges(text)[0])
    return [
        _normalise_span(text[s:e]) for s, e in code_ranges(text) if (s, e) not in fences
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("", [], id="empty"),
        pytest.param("no code here\n", [], id="plain"),
        pytest.param("```\na\n```\nafter\n", ["```\na\n```\n"], id="backticks"),
        pytest.param("~~~\na\n~~~\n", ["~~~\na\n~~~\n"], id="tildes"),
        pytest.param(
            "````md\n```\nx\n````\n", ["````md\n```\nx\n````\n"], id="longer-fence"
        ),
        pytest.param(
            "```\na\n~~~\nb\n```\n", ["```\na\n~~~\nb\n```\n"], id="other-char-no-close"
        ),
        pytest.param("   ```\na\n   ```\n", ["   ```\na\n   ```\n"], id="indented-3"),
        pytest.param("    ```\na\n", [], id="indented-4-not-fence"),
        pytest.param(
            "```\na\n``` x\nb\n", ["```\na\n``` x\nb\n"], id="closer-with-info-no-close"
        ),
        pytest.param(
            "```\nunclosed\nrest", ["```\nunclosed\nrest"], id="unclosed-to-eof"
        ),
        pytest.param("```\na\n```", ["```\na\n```"], id="no-trailing-newline"),
        pytest.param("``` a`b\nnot fence\n", [], id="backtick-in-info"),
        pytest.param(
            "~~~ a`b\nx\n~~~\n", ["~~~ a`b\nx\n~~~\n"], id="tilde-info-backtick-ok"
        ),
        pytest.param("a `b` c\n", ["`b`"], id="span"),
        pytest.param("a ``b ` c`` d\n", ["``b ` c``"], id="double-span"),
        pytest.param("a `b\nc` d\n", ["`b\nc`"], id="span-across-lines"),
        pytest.param("a `b\n\nc` d\n", [], id="no-span-across-blank"),
        pytest.param("a ``b` c\n", [], id="unmatched-lengths"),
        pytest.param("a \\`b` c`\n", ["` c`"], id="escaped-backtick"),
        pytest.param("# a `b\nc` d\n", [], id="heading-breaks"),
        pytest.param("<!--\n```\n-->\nx\n", [], id="fence-in-html-comment"),
        pytest.param("émoji 🎉 `code` ✓\n", ["`code`"], id="non-ascii"),
    ],
)
def test_code_ranges_cases(text: str, expected: list[str]) -> None:
    assert pieces(text) == expected


def test_ranges_are_sorted_and_disjoint() -> None:
    text = "`a`\n```\nx `y` z\n```\n`b` and `c`\n~~~\n`d`\n"
    ranges = code_ranges(text)
    assert ranges == sorted(ranges)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))
    assert pieces(text) == ["`a`", "```\nx `y` z\n```\n", "`b`", "`c`", "~~~\n`d`\n"]


def test_code_ranges_contains_and_lazy_index_agree() -> None:
    text = "intro `x`\n```\nfence\n```\npara `a\nb` end\n\n- item `c`\n~~~\nopen"
    full = CodeRanges(code_ranges(text))
    lazy = CodeIndex(text)
    for i in range(len(text) + 1):
        assert lazy.contains(i) == full.contains(i), i
    assert full.contains(text.index("fence"))
    assert not full.contains(text.index("intro"))
    assert full.contains(len(text) - 1)


LINES = [
    "plain text line",
    "text with `code` span",
    "text with `open tick",
    "close tick` here",
    "``double `inner` ticks``",
    "```",
    "````",
    "```python",
    "~~~",
    "~~~~ info `x`",
    "  ```",
    "   ~~~",
    "``` trailing",
    "```   ",
    "",
    "",
    "# heading with `tick",
    "<!-- agent:status -->",
    "<!-- /agent:status -->",
    "<!--",
    "-->",
    "émoji 🎉 `ü` done",
    "a `` b `` c ` d",
    "\\`escaped` tick`",
]


@pytest.mark.parametrize("seed", range(300))
def test_fences_and_spans_match_markdown_it(seed: int) -> None:
    rng = random.Random(seed)
    text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(1, 40)))
    if rng.random() < 0.5:
        text += "\n"
    assert fence_lines(text) == oracle_fences(text), text
    assert my_spans(text) == oracle_spans(text), text


def test_large_document_ranges() -> None:
    """Every fence and span of a large document (its speed: bench/bench_parse.py)."""
    block = "para `x` text\n```py\ncode `y`\n```\n<!-- agent:a -->\nbody\n<!-- /agent:a -->\n\n"
    text = block * 3000
    ranges = code_ranges(text)
    assert len(ranges) == 6000


def test_code_ranges_within_is_relative_to_the_start() -> None:
    ranges = CodeRanges([(0, 5), (10, 20), (30, 40)])
    assert ranges.within(0, 100) == [(0, 5), (10, 20), (30, 40)]
    assert ranges.within(12, 31) == [(-2, 8), (18, 28)]
    assert ranges.within(20, 30) == []
    assert ranges.within(4, 10) == [(-4, 1)]
    assert CodeRanges([]).within(0, 10) == []
