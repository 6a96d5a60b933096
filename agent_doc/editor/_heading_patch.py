"""Headings of a component: found, or patched from the last ones after an edit.

A long conversation is one component (the exchange) holding thousands of
headings; a keystroke in it changed one line. :func:`patched_headings` finds
the window where the component's text differs from the text its headings were
last found in (:func:`~agent_doc.editor._textwindow.span_ends`: no copy of the
text, and no compare of what the server noted as unchanged), keeps
the headings before it, re-scans the window and shifts the headings after it.
It gives up (``None``: build afresh) when the window touches a marker, when a
fenced block crosses the window's edges, or when the code blocks outside the
window differ.
"""

from __future__ import annotations

from bisect import bisect_left
from bisect import bisect_right
from collections.abc import Callable
from operator import attrgetter
from operator import itemgetter

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.components import Component
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import rfind
from agent_doc.editor._textwindow import span_ends
from agent_doc.editor.model import Symbol

# literal "\n" prefix: ~8x faster than a MULTILINE "^" on large texts
_HEADING = lazy_compile(r"\n {0,3}#{1,6}[ \t][^\n]*")
_CLOSING = lazy_compile(r"(?:^|[ \t]+)#+[ \t]*$")


CompKey = tuple[str, tuple[tuple[str, str], ...], int, int, int, int]
"""A component's name, attributes and marker offsets relative to its base."""
Ranges = list[tuple[int, int]]
OldSpan = tuple[TextLike, int, int]
"""A component's text as ``(text, start, length)``: ``text[start:start + length]``."""


def shift_symbol(symbol: Symbol, delta: int) -> Symbol:
    """``symbol`` (children included) with every offset moved by ``delta``."""
    return Symbol(
        symbol.name,
        symbol.detail,
        symbol.kind,
        symbol.start + delta,
        symbol.end + delta,
        symbol.sel_start + delta,
        symbol.sel_end + delta,
        tuple(shift_symbol(child, delta) for child in symbol.children),
    )


def _outside(code: Ranges, head: int, end: int) -> tuple[Ranges, Ranges] | None:
    """``code`` (sorted, disjoint) split into the ranges before ``head`` and
    those from ``end`` on; ``None`` when one lies across."""
    cut = bisect_right(code, head, key=itemgetter(1))  # ends <= head
    if bisect_left(code, end, key=itemgetter(0)) != cut:  # starts >= end
        return None
    return code[:cut], code[cut:]


def patched_headings(
    text: str,
    base: int,
    length: int,
    old: tuple[OldSpan, CompKey, Ranges, tuple[Symbol, ...]],
    new: tuple[CompKey, Ranges],
    rescan: Callable[[int, int], list[Symbol]],
) -> tuple[Symbol, ...] | None:
    """The headings (relative to ``base``) of the component whose text is now
    ``text[base:base + length]``.

    ``old`` is the text (in the text it lay in), component, code ranges and
    headings found last time;
    ``new`` the component and code ranges now (all relative to their base);
    ``rescan(lo, hi)`` gives the headings whose line break before them lies in
    ``text[lo:hi]``. ``None`` when the old headings cannot be reused safely.
    """
    (old_text, old_at, old_len), old_comp, old_code, old_heads = old
    new_comp, new_code = new
    delta = length - old_len
    if (
        old_comp[:4] != new_comp[:4]
        or (
            old_comp[4] + delta,
            old_comp[5] + delta,
        )
        != new_comp[4:]
    ):
        return None
    head, tail = span_ends(old_text, old_at, old_len, text, base, length)
    old_end, new_end = old_len - tail, length - tail
    if head < new_comp[3] or old_end > old_comp[4]:
        return None  # the edit touches a marker
    old_split = _outside(old_code, head, old_end)
    new_split = _outside(new_code, head, new_end)
    if old_split is None or new_split is None or old_split[0] != new_split[0]:
        return None
    if [(a + delta, b + delta) for a, b in old_split[1]] != new_split[1]:
        return None
    newline = rfind(old_text, "\n", old_at, old_at + head)
    lo = max(newline - old_at if newline >= 0 else -1, new_comp[3] - 1)
    start = attrgetter("start")  # the headings are in document order
    before = old_heads[: bisect_left(old_heads, lo + 1, key=start)]
    after = old_heads[bisect_left(old_heads, old_end + 1, key=start) :]
    after = tuple(shift_symbol(h, delta) for h in after)
    return (*before, *rescan(base + lo, base + new_end), *after)


def headings_in(
    text: str, top: Component, code: CodeRanges
) -> list[tuple[int, int, str]]:
    """``(start, end, title)`` of ATX headings inside ``top``, outside code."""
    found = []
    line_end = text.find("\n", top.close_start)  # a heading line may end there
    span_end = len(text) if line_end < 0 else line_end
    for match in _HEADING.finditer(text, top.open_end - 1, span_end):
        start = match.start() + 1
        if start >= top.close_start:
            break
        if not code.contains(start):
            found.append((start, match.end()))
    return [(start, end, _title(text[start:end])) for start, end in found]


def _title(line: str) -> str:
    title = line.strip().lstrip("#").strip()
    return _CLOSING.sub("", title) if title.endswith("#") else title


def rescan_headings(
    text: str, top: Component, code: CodeRanges, lo: int, hi: int
) -> list[Symbol]:
    """The heading symbols of ``top`` (relative to its start) whose line
    break before them lies in ``text[lo:hi]``, as :func:`headings_in` finds
    them."""
    base, found = top.open_start, []
    for match in _HEADING.finditer(text, lo, _span_end_of_line(text, top)):
        start = match.start() + 1
        if match.start() >= hi or start >= top.close_start:
            break
        if not code.contains(start):
            title = _title(text[start : match.end()]) or "#"
            rel, end = start - base, match.end() - base
            found.append(Symbol(title, "", "heading", rel, end, rel, end))
    return found


def _span_end_of_line(text: str, top: Component) -> int:
    """The end of the line of ``top``'s closing marker (where headings end)."""
    line_end = text.find("\n", top.close_start)
    return len(text) if line_end < 0 else line_end
