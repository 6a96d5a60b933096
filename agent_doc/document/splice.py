"""Replacing one span of a large text with a single copy of the text.

``text[:start] + new + text[end:]`` copies a large text twice (the slices, then
the result); on a 1 MB document held as 4 bytes per character every copy
touches megabytes of fresh memory. ``str.replace`` builds its result in one
copy, so :func:`splice` replaces a window around the span when that window's
first occurrence is the span's own place, and slices otherwise.
"""

from __future__ import annotations

_WINDOW = 256
"""Characters of context on each side that make the replaced window unique."""
_SMALL = 1 << 16
"""Below this many characters the plain slices are as cheap."""


def splice(text: str, start: int, end: int, new: str) -> str:
    """``text[:start] + new + text[end:]``, copying ``text`` once when it can."""
    if len(text) < _SMALL:
        return text[:start] + new + text[end:]
    lo = max(start - _WINDOW, 0)
    hi = min(end + _WINDOW, len(text))
    window = text[lo:hi]
    if text.find(window, 0, hi) != lo:  # an identical window comes earlier
        return "".join((text[:start], new, text[end:]))
    return text.replace(window, text[lo:start] + new + text[end:hi], 1)
