"""Inline code spans of markdown: backtick strings paired within a paragraph.

The code-span half of :mod:`agent_doc.document.codeblocks` (which finds the
fenced and HTML comment blocks and calls here for the stretches between
them): CommonMark's pairing of backtick strings of equal length, inside one
paragraph, a backslash escaping only an opener's first backtick; the lines
that end a paragraph are found by one literal-prefixed pattern.
"""

from __future__ import annotations

from bisect import bisect_right

from agent_doc._runtime.lazy import lazy_compile

# Lines that end a paragraph. Group 1: the line is a block of its own
# (ATX heading, setext underline, thematic break, one-line HTML comment):
# the paragraph cannot go
# on after it either. Group 2: a list item start. Otherwise a blank line.
_BARRIER_BODY = (
    r"(?:( {0,3}(?:#{1,6}(?=[ \t\n]|\Z)[^\n]*"
    r"|=+[ \t]*(?=\n|\Z)"
    r"|(?:-[ \t]*){3,}(?=\n|\Z)|(?:\*[ \t]*){3,}(?=\n|\Z)|(?:_[ \t]*){3,}(?=\n|\Z)"
    r"|<!--[^\n]*))"
    r"|[ \t]*(?=\n|\Z)"
    r"|( {0,3}(?:[-+*]|\d{1,9}[.)]))(?=[ \t\n]|\Z))"
)
_BARRIER_LINE = lazy_compile("\n" + _BARRIER_BODY)
_BARRIER_AT = lazy_compile(_BARRIER_BODY)
_BACKTICKS = lazy_compile(r"`+")


def _indent(text: str, pos: int) -> int:
    """Number of spaces (at most 3) starting at ``pos``."""
    n = 0
    while n < 3 and text.startswith(" ", pos + n):
        n += 1
    return n


def line_end(text: str, pos: int) -> int:
    """Offset just past the ``\\n`` ending the line that holds ``pos``."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Code spans within one paragraph ``text[lo:hi]`` (CommonMark pairing)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, lo, hi)]
    if len(runs) < 2:
        return []
    by_len: dict[int, list[int]] = {}
    for i, (s, e) in enumerate(runs):
        by_len.setdefault(e - s, []).append(i)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        # A backslash escapes the first backtick of an opener (only there:
        # inside a span backslashes are literal).
        slashes = 0
        while start - slashes - 1 >= lo and text[start - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:
            start += 1
        same = by_len.get(end - start)
        j = -1
        if same is not None and start < end:
            k = bisect_right(same, i)
            j = same[k] if k < len(same) else -1
        if j < 0:
            i += 1
            continue
        out.append((start, runs[j][1]))
        i = j + 1
    return out


def _paragraph_cuts(text: str, lo: int, hi: int) -> list[int]:
    """Sorted offsets in ``[lo, hi)`` where a paragraph cannot continue."""
    cuts: list[int] = []
    # Search "\n"-prefixed lines; a line at ``lo`` itself is checked directly.
    first = _BARRIER_AT.match(text, lo)
    if first is not None and (lo == 0 or text[lo - 1] == "\n"):
        cuts.append(lo)
        if first.group(1) is not None:
            cuts.append(line_end(text, lo))
    for m in _BARRIER_LINE.finditer(text, lo, hi):
        start = m.start() + 1
        cuts.append(start)
        if m.group(1) is not None:
            cuts.append(line_end(text, start))
    return cuts


def inline_ranges(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Code spans in the block-free stretch ``text[lo:hi]``."""
    if text.find("`", lo, hi) < 0:
        return []
    out: list[tuple[int, int]] = []
    prev = lo
    for cut in [*_paragraph_cuts(text, lo, hi), hi]:
        if cut > prev:
            if not text.startswith("<!--", prev + _indent(text, prev)):
                out.extend(_spans(text, prev, cut))
            prev = cut
    return out


def paragraph(text: str, offset: int, lo: int, hi: int) -> tuple[int, int]:
    """Bounds of the paragraph holding ``offset`` within ``text[lo:hi]``.

    Consistent with :func:`_paragraph_cuts`: a barrier line starts a new
    paragraph; a heading-like barrier line is a paragraph of its own.
    """
    line = text.rfind("\n", lo, offset) + 1
    line = max(line, lo)
    here = _BARRIER_AT.match(text, line)
    start = line
    if here is None:
        while start > lo:
            prev = max(text.rfind("\n", lo, start - 1) + 1, lo)
            m = _BARRIER_AT.match(text, prev)
            if m is not None:
                if m.group(2) is not None:
                    start = prev  # a list item line opens this paragraph
                break
            start = prev
    if here is not None and here.group(1) is not None:
        return start, min(line_end(text, line), hi)
    end = line_end(text, line)
    while end < hi and _BARRIER_AT.match(text, end) is None:
        end = line_end(text, end)
    return start, min(end, hi)
