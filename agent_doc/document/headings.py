"""``(HEAD)`` markers on new headings, for the selective commit (spec §7.15).

A heading is *new* when it occurs more often in the snapshot than in git HEAD
(occurrence counting, so repeated ``### Re: …`` titles across cycles work).
When the text has no ATX headings, bold pseudo-headers (``**…**`` alone on a
line) get the marker instead. Lines inside fenced code are never touched.

``preflight`` runs this on every turn over the whole document and its HEAD
version, so the heading lines are counted by one regular-expression pass per
stretch of text outside fenced code; the lines are walked one by one only when
some heading is new.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.codeblocks import block_ranges

HEAD_SUFFIX = " (HEAD)"
# Whole heading lines (``$`` is the line's end; nothing here crosses a "\n").
_ATX = lazy_compile(r"^ {0,3}#{1,6}(?:[ \t]+.*)?$", re.MULTILINE)
_BOLD = lazy_compile(r"^\*\*[^*\n].*\*\*[^\S\n]*$", re.MULTILINE)
# The same lines after a "\n", as searches with a literal start (about twice as
# fast as ``^``, which is tried at every offset): for counting, not for order.
_AFTER_NEWLINE = {
    _ATX: (
        lazy_compile(r"\n(#{1,6}(?:[ \t]+.*)?)$", re.MULTILINE),
        lazy_compile(r"\n( {1,3}#{1,6}(?:[ \t]+.*)?)$", re.MULTILINE),
    ),
    _BOLD: (lazy_compile(r"\n(\*\*[^*\n].*\*\*[^\S\n]*)$", re.MULTILINE),),
}


def _is_marked_kind(line: str) -> bool:
    """Whether ``line`` (no ``\\n``) is an ATX heading or a bold pseudo-header."""
    return bool(_ATX.fullmatch(line) or _BOLD.fullmatch(line))


def strip_head_markers(text: str) -> str:
    """Remove every ``(HEAD)`` suffix from heading and pseudo-header lines."""
    if HEAD_SUFFIX not in text:
        return text
    out: list[str] = []
    pos = 0  # text[pos:] is not emitted yet
    found = text.find(HEAD_SUFFIX)
    while found >= 0:
        start = text.rfind("\n", 0, found) + 1
        end = text.find("\n", found)
        end = len(text) if end < 0 else end
        bare = text[start:end].rstrip()
        if bare.endswith(HEAD_SUFFIX) and _is_marked_kind(bare[: -len(HEAD_SUFFIX)]):
            out.append(text[pos:start])
            out.append(bare[: -len(HEAD_SUFFIX)])
            pos = end
        found = text.find(HEAD_SUFFIX, end)
    out.append(text[pos:])
    return "".join(out)


def _outside_fences(text: str) -> Iterator[tuple[int, int]]:
    """``[start, end)`` stretches of whole lines outside fenced code blocks.

    (Once a fence exists, HTML comment blocks are left out too.)
    """
    if "```" not in text and "~~~" not in text:
        yield 0, len(text)
        return

    fences, comments = block_ranges(text)
    pos = 0
    for start, end in sorted(fences + comments):
        if start > pos:
            yield pos, start
        pos = max(pos, end)
    if pos < len(text):
        yield pos, len(text)


def _heading_counts(text: str, pattern: re.Pattern[str]) -> Counter[str]:
    """How often each heading line (right-stripped) occurs outside fenced code."""
    counts: Counter[str] = Counter()
    for start, end in _outside_fences(text):
        first = pattern.match(text, start, end)  # the stretch's first line
        if first is not None:
            counts[first.group().rstrip()] += 1
        for after_newline in _AFTER_NEWLINE[pattern]:
            counts.update(map(str.rstrip, after_newline.findall(text, start, end)))
    return counts


def mark_new_headings(snapshot: str, head: str | None) -> str:
    """Append ``(HEAD)`` to the headings of ``snapshot`` that are new since ``head``."""
    text = strip_head_markers(snapshot)
    previous = strip_head_markers(head or "")
    pattern = _ATX
    now = _heading_counts(text, pattern)
    if not now:
        pattern = _BOLD
        now = _heading_counts(text, pattern)
    before = _heading_counts(previous, pattern)
    if all(count <= before[key] for key, count in now.items()):
        return text
    out: list[str] = []
    pos = 0  # text[pos:] is not emitted yet
    seen: Counter[str] = Counter()
    for start, end in _outside_fences(text):
        for line in pattern.finditer(text, start, end):
            key = line.group().rstrip()
            seen[key] += 1
            if seen[key] > before[key]:
                out.append(text[pos : line.start()])
                out.append(key + HEAD_SUFFIX)
                pos = line.end()
    out.append(text[pos:])
    return "".join(out)
