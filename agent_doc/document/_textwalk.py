"""Walking two texts side by side without splitting them into lines.

A text derived from a base (the user's file, the agent's content_ours) is
mostly the base: long stretches equal in both, and a few edited lines. These
helpers find the stretches by comparing slices (in C) and looking the base's
next line up in the text after a difference, so a large document with a few
edits costs a few passes over its characters and no list of its lines.

:func:`text_hunks` gives the line-aligned differences of a text from its base;
:func:`merge_by_windows` merges two texts derived from one base by merging
only the windows of lines around those differences, taking every stretch the
three texts share as it is.

Every helper takes ``str`` or ``bytes`` (all texts of one call the same type):
a disk write merges the files' UTF-8 as it is, four times fewer bytes to walk
than a ``str`` holding an emoji, and never builds the merged ``str``.
"""

from __future__ import annotations

from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    Text = TypeVar("Text", str, bytes)
    """A text as characters or as UTF-8."""

TextHunk = tuple[int, int, int, int]
"""``(b1, b2, t1, t2)``: ``base[b1:b2]`` became ``text[t1:t2]`` (line starts)."""

ANCHOR = 64
"""Characters of a base line (and what follows) looked for in the text."""
NEAR = 1 << 9
"""How far ahead in the text an anchor is looked for first."""
WINDOW = 1 << 14
"""How far ahead in the text an anchor is looked for at most."""
TRIES = 6
"""Base lines tried as anchors after a difference."""
CHUNK = 1 << 12
"""Characters compared at once when looking for a common start or end."""
CONTEXT_LINES = 3
"""Untouched lines kept around each difference in a merge window."""


def newline_of(text: Text) -> Text:
    """``"\\n"`` in the type of ``text``."""
    if isinstance(text, str):
        return "\n"
    return b"\n"


def common_run(a: Text, i: int, a_end: int, b: Text, j: int, b_end: int) -> int:
    """How many characters ``a[i:a_end]`` and ``b[j:b_end]`` share from the start."""
    limit = min(a_end - i, b_end - j)
    n = 0
    step = CHUNK
    while step:  # chunks first (compared in C, small copies), then halve
        while n + step <= limit and a[i + n : i + n + step] == b[j + n : j + n + step]:
            n += step
        step //= 2
    return n


def resync(
    text: Text,
    t: int,
    t_end: int,
    base: Text,
    b: int,
    b_end: int,
    budget: list[int],
) -> tuple[int, int] | None:
    """Line starts ``(t_at, b_at)`` after the difference at ``(t, b)`` where
    ``text`` seems to continue like ``base``; ``None`` when none is found or
    the walk has searched ``budget[0]`` characters (a text edited on most lines
    is then split as it is, in linear time)."""
    nl = newline_of(text)
    for window in (NEAR, WINDOW):  # most edits are a line or two: look near first
        stop = min(t + window, t_end)
        at = b
        for _ in range(TRIES):
            anchor = base[at : min(at + ANCHOR, b_end)]
            if not anchor or budget[0] < 0:
                return None
            pos = text.find(anchor, t, stop)
            while pos > 0 and text[pos - 1 : pos] != nl:  # a line start only
                pos = text.find(anchor, pos + 1, stop)
            budget[0] -= (stop if pos < 0 else pos + len(anchor)) - t  # searched
            if pos >= 0 and (pos, at) != (t, b):
                return pos, at
            newline = base.find(nl, at, b_end)
            if newline < 0:
                break
            at = newline + 1
    return None


def common_head(a: Text, b: Text) -> int:
    """Length of the longest common start of ``a`` and ``b`` made of whole lines."""
    i = common_prefix(a, b, chunk=CHUNK)
    return a.rfind(newline_of(a), 0, i) + 1  # back to the start of a line


def common_tail(a: Text, b: Text, limit: int) -> int:
    """Length of the longest common end of ``a`` and ``b`` (at most ``limit``)
    that starts a line in both (0 when there is none)."""
    i = common_suffix(a, b, limit, chunk=CHUNK)
    newline = a.find(newline_of(a), len(a) - i)  # after a shared "\n"
    return 0 if newline < 0 else len(a) - newline - 1


def text_hunks(base: Text, text: Text) -> list[TextHunk]:
    """The line-aligned differences of ``text`` from ``base``, ascending.

    Between two hunks (and before the first, after the last) the texts are
    equal, checked character by character; a hunk is not always the smallest
    one (a line repeated nearby may be taken as the way back). Both texts end
    with ``\\n``.
    """
    head = common_head(base, text)
    tail = common_tail(base, text, min(len(base), len(text)) - head)
    b_end, t_end = len(base) - tail, len(text) - tail
    budget = [2 * (t_end - head) + TRIES * WINDOW]  # characters searched, at most
    hunks: list[TextHunk] = []
    b = t = head
    while b < b_end or t < t_end:  # the lines at b and t differ
        first_b, first_t = b, t
        while True:
            found = None
            if t < t_end:
                found = resync(text, t, t_end, base, b, b_end, budget)
            if found is None:
                hunks.append((first_b, b_end, first_t, t_end))
                return hunks
            t, b = found
            run = common_run(base, b, b_end, text, t, t_end)
            last = base.rfind(newline_of(base), b, b + run)
            if last >= 0:  # at least one whole line in common: the hunk ends
                break
        hunks.append((first_b, b, first_t, t))
        t += last + 1 - b
        b = last + 1
    return hunks


def merge_by_windows(
    base: Text, ours: Text, theirs: Text, merge: Callable[[Text, Text, Text], Text]
) -> Text:
    """Merge ``ours`` and ``theirs`` (both derived from ``base``) window by window.

    Each window is a stretch of base lines holding differences of either side
    with :data:`CONTEXT_LINES` untouched lines around them; windows closer
    than that are one window. ``merge(base_part, ours_part, theirs_part)``
    merges a window; everything between windows is equal in all three texts
    and is taken as it is. All three texts end with ``\\n``.
    """
    pieces = merged_pieces(base, ours, theirs, merge)
    return base[:0].join(
        base[p.start : p.stop] if isinstance(p, range) else p for p in pieces
    )


def merged_pieces(
    base: Text, ours: Text, theirs: Text, merge: Callable[[Text, Text, Text], Text]
) -> list[Text | range]:
    """The pieces :func:`merge_by_windows` joins, in order: the merged windows,
    and between them the stretches of ``base`` all three texts share, as
    ranges of ``base`` (so bytes can be joined from views, without copies)."""
    spans = sorted(
        (_lines_back(base, h[0]), _lines_ahead(base, h[1]), side, h)
        for side, text in enumerate((ours, theirs))
        for h in text_hunks(base, text)
    )
    windows: list[list[int]] = []  # [start, end, ours growth, theirs growth]
    for start, end, side, (b1, b2, t1, t2) in spans:
        if not windows or start > windows[-1][1]:
            windows.append([start, end, 0, 0])
        window = windows[-1]
        window[1] = max(window[1], end)
        window[2 + side] += (t2 - t1) - (b2 - b1)
    out: list[Text | range] = []
    pos = 0
    shift = [0, 0]  # where the base's offsets are in ours / theirs, so far
    for start, end, grow_ours, grow_theirs in windows:
        out.append(range(pos, start))
        parts = []
        for side, (text, grow) in enumerate(((ours, grow_ours), (theirs, grow_theirs))):
            parts.append(text[start + shift[side] : end + shift[side] + grow])
            shift[side] += grow
        out.append(merge(base[start:end], parts[0], parts[1]))
        pos = end
    out.append(range(pos, len(base)))
    return out


def _lines_back(text: Text, pos: int) -> int:
    """The start of the line :data:`CONTEXT_LINES` lines before the one at ``pos``."""
    for _ in range(CONTEXT_LINES):
        if pos <= 0:
            return 0
        pos = text.rfind(newline_of(text), 0, pos - 1) + 1
    return pos


def _lines_ahead(text: Text, pos: int) -> int:
    """The start of the line :data:`CONTEXT_LINES` lines after the one at ``pos``."""
    for _ in range(CONTEXT_LINES):
        newline = text.find(newline_of(text), pos)
        if newline < 0:
            return len(text)
        pos = newline + 1
    return pos
