"""Outline: sections, line numbers, counts, frontmatter and code immunity."""

from __future__ import annotations

import json

from agent_doc.document.outline import PREAMBLE
from agent_doc.document.outline import Section
from agent_doc.document.outline import outline
from agent_doc.document.outline import render_outline_text

DOC = """\
---
session: abc
title: x
---
Intro line.

# Title

Some text.
## Part A ##
a1
a2

```md
# not a heading
```
<!--
# not a heading either
-->
### Deep
#hashtag is not a heading
####### seven is not a heading
## Part B"""


def test_sections_with_lines_and_depths() -> None:
    sections = outline(DOC)
    assert [(s.heading, s.depth, s.line, s.lines) for s in sections] == [
        (PREAMBLE, 0, 5, 2),
        ("Title", 1, 7, 2),
        ("Part A", 2, 10, 9),
        ("Deep", 3, 20, 2),
        ("Part B", 2, 23, 0),
    ]


def test_tokens_are_bytes_over_four() -> None:
    text = "# é\n" + "x" * 40 + "\n"
    (section,) = outline(text)
    assert section.tokens == len(text.encode()) // 4 == 11


def test_no_preamble_when_only_frontmatter_and_blank_lines() -> None:
    sections = outline("---\na: 1\n---\n\n\n# H\nbody\n")
    assert [s.heading for s in sections] == ["H"]
    assert sections[0].line == 6


def test_document_without_headings_is_one_preamble() -> None:
    assert outline("just text\nmore\n") == [Section(PREAMBLE, 0, 1, 2, 3)]
    assert outline("") == []


def test_heading_edge_forms() -> None:
    text = "#\n   # three spaces\n    # four spaces is code\n# closing #\n# a#b\n"
    assert [s.heading for s in outline(text)] == ["", "three spaces", "closing", "a#b"]


def test_unclosed_frontmatter_is_content() -> None:
    sections = outline("---\nnot closed\n# H\n")
    assert [s.heading for s in sections] == [PREAMBLE, "H"]


def test_json_and_text_rendering() -> None:
    sections = outline(DOC)
    data = json.loads(json.dumps([s.as_dict() for s in sections]))
    assert data[1] == {
        "heading": "Title",
        "depth": 1,
        "line": 7,
        "lines": 2,
        "tokens": 5,
    }
    table = render_outline_text(sections).splitlines()
    assert table[0].split() == ["SECTION", "LINE", "LINES", "TOKENS"]
    assert table[1].startswith(PREAMBLE)
    assert table[2].startswith("# Title")
    assert table[3].startswith("  ## Part A")
    assert table[4].startswith("    ### Deep")
    assert table[4].split()[-3:] == ["20", "2", str(sections[3].tokens)]
    assert len({len(row) for row in table}) == 1
