"""``(HEAD)`` marking counts heading lines with fast searches; a plain line-by-line
reading of the rule (spec §7.15) must give the same marks on any text."""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.headings import mark_new_headings
from agent_doc.document.headings import strip_head_markers

ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+.*)?$")
BOLD = re.compile(r"^\*\*[^*].*\*\*\s*$")


def _fenced(text: str) -> set[int]:
    if "```" not in text and "~~~" not in text:
        return set()
    starts = [0, *itertools.accumulate(len(line) + 1 for line in text.split("\n"))]
    fences, comments = block_ranges(text)
    inside: set[int] = set()
    for start, end in fences + comments:
        inside.update(
            range(bisect.bisect_left(starts, start), bisect.bisect_left(starts, end))
        )
    return inside


def _headings(text: str, pattern: re.Pattern[str]) -> list[int]:
    fenced = _fenced(text)
    lines = text.split("\n")
    return [i for i, ln in enumerate(lines) if i not in fenced and pattern.match(ln)]


def _reference(snapshot: str, head: str | None) -> str:
    text, previous = strip_head_markers(snapshot), strip_head_markers(head or "")
    found = _headings(text, ATX)
    pattern = ATX if found else BOLD
    found = found or _headings(text, BOLD)
    before_lines = previous.split("\n")
    before = Counter(before_lines[i].rstrip() for i in _headings(previous, pattern))
    lines = text.split("\n")
    seen: Counter[str] = Counter()
    for i in found:
        key = lines[i].rstrip()
        seen[key] += 1
        if seen[key] > before[key]:
            lines[i] = key + " (HEAD)"
    return "\n".join(lines)


LINE = st.sampled_from(
    ["# a", "## b", "### Re: q", "   # c", "    # d", "#x", "#", "##\x0c", "# a ",
     "**bold**", "**b** ", "***x**", "```", "~~~", "````", "<!-- x", "-->", "text",
     "", "# a (HEAD)", "**bold** (HEAD)", "# q\r", "**b**\x85", " ## e"]
)  # fmt: skip
TEXT = st.lists(LINE, max_size=14).map("\n".join)


@settings(max_examples=3000, deadline=None)
@given(TEXT, st.none() | TEXT)
def test_marks_match_the_line_by_line_rule(snapshot: str, head: str | None) -> None:
    assert mark_new_headings(snapshot, head) == _reference(snapshot, head)
