"""Removal of consecutive duplicate ``### Re:`` response blocks (spec §7.28 dedupe).

A response block starts at a ``### Re:`` heading and runs to the next heading
of depth 1–3, the next component marker line, or the end of the text (deeper
headings belong to it). Two blocks are duplicates when they are equal after
removing boundary marker lines, a ``(HEAD)`` suffix on the heading and trailing
whitespace. Of a run of consecutive duplicates the first is kept; the others
are removed except for any boundary marker they hold, so the boundary survives.
Headings inside fenced code or HTML comment blocks are ignored.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.boundary import Boundary
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges

__all__ = ["dedupe_responses"]

_HEAD_SUFFIX = " (HEAD)"
# A line that ends a response block; group "re" marks the start of a new one.
_STOP = lazy_compile(
    r"^(?:(?P<re> {0,3}### Re:)| {0,3}#{1,3}(?=[ \t]|$)"
    r"|(?P<marker><!-- /?agent:(?!boundary:)))",
    re.MULTILINE,
)


def _blocks(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every response block, in document order."""
    fences, comments = block_ranges(text)
    in_fence = CodeRanges(fences)
    in_comment = CodeRanges(comments)  # marker lines are comment blocks too
    stops = [
        (m.start(), m.group("re") is not None)
        for m in _STOP.finditer(text)
        if not in_fence.contains(m.start())
        and (m.group("marker") is not None or not in_comment.contains(m.start()))
    ]
    blocks: list[tuple[int, int]] = []
    for i, (start, is_response) in enumerate(stops):
        if is_response:
            end = stops[i + 1][0] if i + 1 < len(stops) else len(text)
            blocks.append((start, end))
    return blocks


def _inside(boundaries: list[Boundary], start: int, end: int) -> list[Boundary]:
    return [b for b in boundaries if start <= b.start < end]


def _key(text: str, start: int, end: int, boundaries: list[Boundary]) -> str:
    """A block's comparable form: no boundary lines, ``(HEAD)`` or trailing blanks."""
    parts: list[str] = []
    pos = start
    for b in _inside(boundaries, start, end):
        parts.append(text[pos : b.start])
        pos = max(b.end, pos)
    parts.append(text[pos:end])
    heading, sep, rest = "".join(parts).partition("\n")
    heading = heading.rstrip()
    heading = heading.removesuffix(_HEAD_SUFFIX)
    return (heading.rstrip() + sep + rest).rstrip()


def dedupe_responses(text: str) -> tuple[str, int]:
    """Drop consecutive duplicate response blocks; return ``(new_text, removed)``.

    Idempotent: a second call returns the text unchanged and ``0``.
    """
    if "### Re:" not in text:
        return text, 0
    boundaries = find_boundaries(text)
    removals: list[tuple[int, int]] = []
    kept_key: str | None = None
    kept_end = -1
    for start, end in _blocks(text):
        key = _key(text, start, end, boundaries)
        if start == kept_end and key == kept_key:
            removals.append((start, end))
        else:
            kept_key = key
        kept_end = end
    if not removals:
        return text, 0
    out: list[str] = []
    pos = 0
    for start, end in removals:
        out.append(text[pos:start])
        markers = [text[b.start : b.end] for b in _inside(boundaries, start, end)]
        out.extend(m if m.endswith("\n") else m + "\n" for m in markers)
        pos = end
    out.append(text[pos:])
    return "".join(out), len(removals)
