"""Line diffs for the CRDT merge: hunks between two lists of lines.

A hunk ``(a1, a2, b1, b2)`` says that lines ``a[a1:a2]`` became ``b[b1:b2]``;
hunks are sorted and disjoint, and everything between them is equal. The
diff trims the common prefix and suffix first, so a large document with a few
scattered edits costs little more than one pass over its lines. Inside that
region a greedy Myers diff runs with a cap on the edit distance; past the cap
the region is cut at lines that are unique on both sides (patience anchors)
and each gap is diffed on its own, with a whole-gap replacement as last resort.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter

Hunk = tuple[int, int, int, int]
"""``(a_start, a_end, b_start, b_end)``: ``a[a_start:a_end]`` → ``b[b_start:b_end]``."""

MAX_EDIT_DISTANCE = 256
"""Myers gives up past this many inserted plus deleted lines in one region."""

_CHUNK = 64
_FIRST_TRY = 64  # edit distance tried before checking whether the cap can do


def split_lines(text: str) -> list[str]:
    """Split ``text`` after every ``\\n`` only; each line keeps its newline."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import TypeVar

    _Seq = TypeVar("_Seq", str, bytes, list[str])
"""Lines, or the characters (UTF-8 bytes) of one text."""


_KNOWN: list[tuple[object, object, int]] = []
"""Common prefixes lent by :class:`known_prefix`, innermost last (of bytes:
immutable, so an answer is true in any thread)."""


class known_prefix:  # noqa: N801 - used as a context manager, like a function
    """``with known_prefix(a, b, n):`` the steps run inside it get ``n`` from
    ``common_prefix(a, b)`` (those very objects, from 0) without a
    comparison: a command that has compared two large texts once lends the
    answer to the steps it calls (``preflight``'s excerpts compare the
    snapshot with the document its read compared already)."""

    __slots__ = ("_entry",)

    def __init__(self, a: bytes, b: bytes, n: int) -> None:
        self._entry: tuple[object, object, int] = (a, b, n)

    def __enter__(self) -> None:
        _KNOWN.append(self._entry)

    def __exit__(self, *exc: object) -> None:
        for i in range(len(_KNOWN) - 1, -1, -1):  # by identity (no compare)
            if _KNOWN[i] is self._entry:
                del _KNOWN[i]
                break


def common_prefix(a: _Seq, b: _Seq, lo: int = 0, chunk: int = _CHUNK) -> int:
    """Number of equal leading items (lines, or characters of two strings) of
    ``a`` and ``b``, starting at index ``lo``; ``chunk`` items compared at once
    (or lent by :class:`known_prefix`)."""
    if _KNOWN and not lo:
        for known_a, known_b, known in reversed(_KNOWN):  # innermost first
            if a is known_a and b is known_b:
                return known
    n = min(len(a), len(b))
    i = lo
    step = chunk
    if isinstance(a, bytes) and isinstance(b, bytes):  # compared in place
        view = memoryview(a)
        while step:
            while i + step <= n and b.startswith(view[i : i + step], i):
                i += step
            step //= 2
        return i - lo
    while step:  # whole chunks first (compared in C), then halve
        while i + step <= n and a[i : i + step] == b[i : i + step]:
            i += step
        step //= 2
    return i - lo


def common_suffix(a: _Seq, b: _Seq, limit: int, chunk: int = _CHUNK) -> int:
    """Number of equal trailing items of ``a`` and ``b``, at most ``limit``."""
    i = 0
    la, lb = len(a), len(b)
    step = chunk
    while step:
        while (
            i + step <= limit and a[la - i - step : la - i] == b[lb - i - step : lb - i]
        ):
            i += step
        step //= 2
    return i


def _snake(a: list[str], b: list[str], i: int, j: int, limit: int) -> int:
    """Number of equal items of ``a[i:]`` and ``b[j:]``, at most ``limit``."""
    done = 0
    step = _CHUNK
    while step:
        while (
            done + step <= limit
            and a[i + done : i + done + step] == b[j + done : j + done + step]
        ):
            done += step
        step //= 2
    return done


def diff_lines(a: list[str], b: list[str]) -> list[Hunk]:
    """Return the hunks that turn the lines ``a`` into the lines ``b``."""
    pre = common_prefix(a, b)
    suf = common_suffix(a, b, min(len(a), len(b)) - pre)
    return _diff_region(a, b, pre, len(a) - suf, pre, len(b) - suf)


def _diff_region(
    a: list[str], b: list[str], a1: int, a2: int, b1: int, b2: int
) -> list[Hunk]:
    if a1 == a2 and b1 == b2:
        return []
    if a1 == a2 or b1 == b2 or set(a[a1:a2]).isdisjoint(b[b1:b2]):
        return [(a1, a2, b1, b2)]  # (no line in common: every diff is one hunk)
    # Most regions need far fewer edits than the cap: try those first. Past
    # them, skip the full search when the line counts prove it would give up.
    hunks = _myers(a, b, a1, a2, b1, b2, _FIRST_TRY)
    if hunks is not None:
        return hunks
    counts = Counter(a[a1:a2]), Counter(b[b1:b2])
    if not _beyond_cap(*counts):
        hunks = _myers(a, b, a1, a2, b1, b2, MAX_EDIT_DISTANCE)
        if hunks is not None:
            return hunks
    return _patience(a, b, a1, a2, b1, b2, counts)


def _beyond_cap(count_a: Counter[str], count_b: Counter[str]) -> bool:
    """True when lines counted on the two sides prove an edit distance over
    :data:`MAX_EDIT_DISTANCE` (each surplus line is one insertion or deletion)."""
    surplus = 0
    for line, count in count_a.items():
        surplus += abs(count - count_b.get(line, 0))
        if surplus > MAX_EDIT_DISTANCE:
            return True
    for line, count in count_b.items():
        if line not in count_a:
            surplus += count
            if surplus > MAX_EDIT_DISTANCE:
                return True
    return False


def _myers(
    a: list[str], b: list[str], a1: int, a2: int, b1: int, b2: int, max_d: int
) -> list[Hunk] | None:
    """Greedy Myers diff of ``a[a1:a2]`` and ``b[b1:b2]``; ``None`` past ``max_d``."""
    n, m = a2 - a1, b2 - b1
    limit = min(n + m, max_d)
    off = limit + 1
    v = [0] * (2 * limit + 3)
    trace: list[list[int]] = []
    for d in range(limit + 1):
        trace.append(v[:])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            if x < n and y < m and a[a1 + x] == b[b1 + y]:
                x += _snake(a, b, a1 + x, b1 + y, min(n - x, m - y))
                y = x - k
            v[off + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, off, n, m, a1, b1)
    return None


def _backtrack(
    trace: list[list[int]], off: int, n: int, m: int, a1: int, b1: int
) -> list[Hunk]:
    """Walk the Myers trace back from the end and collect coalesced hunks."""
    hunks: list[Hunk] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        v = trace[d]
        k = x - y
        if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = v[off + prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            x -= 1
            y -= 1
        # One edit step from (prev_x, prev_y) to (x, y).
        if hunks and hunks[-1][0] == a1 + x and hunks[-1][2] == b1 + y:
            last = hunks[-1]
            hunks[-1] = (a1 + prev_x, last[1], b1 + prev_y, last[3])
        else:
            hunks.append((a1 + prev_x, a1 + x, b1 + prev_y, b1 + y))
        x, y = prev_x, prev_y
    hunks.reverse()
    return hunks


def _patience(
    a: list[str],
    b: list[str],
    a1: int,
    a2: int,
    b1: int,
    b2: int,
    counts: tuple[Counter[str], Counter[str]],
) -> list[Hunk]:
    """Cut the region at lines unique on both sides, then diff each gap
    (``counts``: how often each line occurs in ``a[a1:a2]`` and ``b[b1:b2]``)."""
    count_a, count_b = counts
    pos_b = dict(zip(b[b1:b2], range(b1, b2), strict=True))  # the last of each
    pairs = [
        (i, pos_b[line])
        for i, line in enumerate(a[a1:a2], a1)
        if count_a[line] == 1 and count_b.get(line) == 1
    ]
    anchors = _longest_increasing(pairs)
    if not anchors:
        return [(a1, a2, b1, b2)]
    hunks: list[Hunk] = []
    prev_a, prev_b = a1, b1
    for i, j in [*anchors, (a2, b2)]:
        if i != prev_a or j != prev_b:  # adjacent anchors leave no gap
            hunks.extend(_gap(a, b, prev_a, i, prev_b, j))
        prev_a, prev_b = i + 1, j + 1
    return hunks


def _gap(a: list[str], b: list[str], a1: int, a2: int, b1: int, b2: int) -> list[Hunk]:
    """Diff one gap between patience anchors; replace it whole past the cap."""
    if a1 == a2 and b1 == b2:
        return []
    if a1 == a2 or b1 == b2:
        return [(a1, a2, b1, b2)]
    if a2 - a1 == b2 - b1 and a[a1:a2] == b[b1:b2]:
        return []  # what Myers finds for equal sides, without its set-up
    hunks = _myers(a, b, a1, a2, b1, b2, MAX_EDIT_DISTANCE)
    return hunks if hunks is not None else [(a1, a2, b1, b2)]


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest run of ``pairs`` (sorted by first item) rising in the second item."""
    seconds = [j for _, j in pairs]
    if seconds == sorted(seconds):  # nothing moved: all of them (the usual case)
        return pairs
    tails: list[int] = []
    tail_idx: list[int] = []
    parent: list[int] = [-1] * len(pairs)
    for idx, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_idx.append(idx)
        else:
            tails[k] = j
            tail_idx[k] = idx
        parent[idx] = tail_idx[k - 1] if k else -1
    out: list[tuple[int, int]] = []
    idx = tail_idx[-1] if tail_idx else -1
    while idx >= 0:
        out.append(pairs[idx])
        idx = parent[idx]
    out.reverse()
    return out
