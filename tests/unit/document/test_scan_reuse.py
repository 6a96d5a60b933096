"""A scan that reuses the latest text's scan gives what a first scan gives.

The write path scans a document, then the same document with an answer spliced
in near its end; the second scan starts where the two texts differ (after an
empty line, outside every block). Here texts full of fences, comment blocks,
code spans and markers are edited anywhere and both scans are compared.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import _textmemo
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.components import clear_scan_memos
from agent_doc.document.components import scan_components

PIECES = [
    "",
    "",
    "plain prose",
    "```",
    "```python",
    "~~~",
    "<!--",
    "-->",
    "<!-- a comment -->",
    "`<!-- agent:exchange -->` in a span",
    "a `tick",
    "tick` closes",
    "<!-- agent:exchange -->",
    "<!-- /agent:exchange -->",
    "<!-- agent:notes -->",
    "<!-- /agent:notes -->",
    "<!-- agent:boundary:abcd1234 -->",
    "# heading",
    "- item with `code`",
    "    indented <!-- agent:x -->",
]

LINES = st.lists(st.sampled_from(PIECES), min_size=40, max_size=120)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _first_scan(text: str) -> tuple[object, object]:
    clear_scan_memos()
    return block_ranges(text), scan_components(text)


@given(LINES, st.integers(0, 200), st.lists(st.sampled_from(PIECES), max_size=8))
@settings(max_examples=400, deadline=None)
def test_scan_after_a_splice_equals_a_first_scan(
    lines: list[str], at: int, inserted: list[str]
) -> None:
    old = _text(lines)
    cut = min(at, len(lines))
    new = _text([*lines[:cut], *inserted, *lines[cut:]])
    expected = _first_scan(new)
    clear_scan_memos()
    block_ranges(old), scan_components(old)  # the latest text
    assert (block_ranges(new), scan_components(new)) == expected


def test_an_answer_spliced_near_the_end_is_scanned_from_where_it_differs() -> None:
    body = "".join(f"para {i}\n\n```\n<!-- agent:x -->\n```\n\n" for i in range(300))
    old = f"<!-- agent:exchange -->\n{body}question\n<!-- /agent:exchange -->\n"
    new = old.replace("question\n", "question\n\nthe `answer`\n")
    restart = _textmemo.restart_point(old, new, sorted(block_ranges(old)[0]))
    assert len(body) < restart <= new.index("question")
    clear_scan_memos()
    scan_components(old)
    found = scan_components(new)
    assert found == _first_scan(new)[1]
    [exchange] = found.components
    assert new[exchange.open_end : exchange.close_start].endswith("the `answer`\n")
