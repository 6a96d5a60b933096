"""``(HEAD)`` markers on new headings, for the selective commit (spec §7.15).

A heading is *new* when it occurs more often in the snapshot than in git HEAD
(occurrence counting, so repeated ``### Re: …`` titles across cycles work).
When the text has no ATX headings, bold pseudo-headers (``**…**`` alone on a
line) get the marker instead. Lines inside fenced code are never touched.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter

from agent_doc.document._lazy_re import lazy_compile

HEAD_SUFFIX = " (HEAD)"
_ATX = lazy_compile(r"^ {0,3}#{1,6}(?:[ \t]+.*)?$")
_BOLD = lazy_compile(r"^\*\*[^*].*\*\*\s*$")
_LINE_STARTS = {  # every line the pattern can match starts like this (a prefilter)
    _ATX: lazy_compile(r"^ {0,3}#", re.MULTILINE),
    _BOLD: lazy_compile(r"^\*\*", re.MULTILINE),
}


def _fenced_lines(text: str) -> set[int]:
    """0-based lines that start inside a fenced code block (or HTML comment)."""
    from agent_doc.document.codeblocks import block_ranges

    starts = [0, *itertools.accumulate(len(line) + 1 for line in text.split("\n"))]
    fences, comments = block_ranges(text)
    inside: set[int] = set()
    for start, end in fences + comments:
        first = bisect.bisect_left(starts, start)
        last = bisect.bisect_left(starts, end)
        inside.update(range(first, last))
    return inside


def strip_head_markers(text: str) -> str:
    """Remove every ``(HEAD)`` suffix from heading and pseudo-header lines."""
    if HEAD_SUFFIX not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        bare = line.rstrip()
        if bare.endswith(HEAD_SUFFIX) and _is_marked_kind(bare[: -len(HEAD_SUFFIX)]):
            lines[index] = bare[: -len(HEAD_SUFFIX)]
    return "\n".join(lines)


def _is_marked_kind(line: str) -> bool:
    return bool(_ATX.match(line) or _BOLD.match(line))


def _candidates(text: str, pattern: re.Pattern[str]) -> list[int]:
    """0-based lines outside fenced code that ``pattern`` matches (whole line)."""
    fenced = _fenced_lines(text) if "```" in text or "~~~" in text else set()
    lines = text.split("\n")
    found: list[int] = []
    index, offset = 0, 0
    for start in _LINE_STARTS[pattern].finditer(text):
        index += text.count("\n", offset, start.start())
        offset = start.start()
        if index not in fenced and pattern.match(lines[index]):
            found.append(index)
    return found


def mark_new_headings(snapshot: str, head: str | None) -> str:
    """Append ``(HEAD)`` to the headings of ``snapshot`` that are new since ``head``."""
    text = strip_head_markers(snapshot)
    previous = strip_head_markers(head or "")
    found = _candidates(text, _ATX)
    pattern = _ATX if found else _BOLD
    if not found:
        found = _candidates(text, _BOLD)
    before = previous.split("\n")
    seen_before = Counter(before[i].rstrip() for i in _candidates(previous, pattern))
    lines = text.split("\n")
    seen_now: Counter[str] = Counter()
    for index in found:
        key = lines[index].rstrip()
        seen_now[key] += 1
        if seen_now[key] > seen_before[key]:
            lines[index] = key + HEAD_SUFFIX
    return "\n".join(lines)
