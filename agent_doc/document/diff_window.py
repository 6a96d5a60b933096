""":func:`~agent_doc.document.diff.compute_diff` on the raw bytes, decoding only
the changed window (a large document costs a few byte scans, not its text).

The snapshot and the document share a long prefix and suffix. The window
around the change is cut at *neutral points*: a line start after a blank line,
outside every fenced block and comment block (found by the code scanner's own
patterns run on the bytes: they are ASCII, so bytes and text agree), with no
HTML comment open across it. Comment stripping and code spans cannot look
across such a point, so the stripped document is the stripped prefix, the
stripped window and the stripped suffix end to end, and the prefix and suffix
are the same on both sides. Only the window is decoded, stripped and diffed;
the hunk numbers are shifted by the prefix's stripped line count (the comments
in the prefix are stripped in their own small neutral chunks). Whenever a
condition cannot be shown (CR or a BOM, an exotic line separator before the
window, a lone-surrogate encoding, no neutral point), :func:`window_diff`
answers :data:`PLAIN` and the caller takes the plain path.
``tests/unit/document/test_diff_window.py`` compares both on random edits.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from agent_doc.document import codeblocks
from agent_doc.document.diff import compute_diff
from agent_doc.document.diff import render_diff
from agent_doc.document.diff import strip_comments
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.document.snap_index import SnapIndex

__all__ = [
    "PLAIN", "block_spans", "diff_texts", "is_neutral", "neutral_after",
    "neutral_before", "same_after", "same_after_utf8", "stripped_lines",
    "window_diff",
]  # fmt: skip

PLAIN = object()
"""Answer of :func:`window_diff` when only the plain path can decide."""

_OTHER_BREAKS = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85",
                 b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # fmt: skip
"""Line breaks of ``str.splitlines`` other than ``\\n`` (and ``\\r``), as UTF-8."""
_PATTERNS: dict[str, re.Pattern[bytes]] = {}
"""Compiled on first use (a per-turn command imports this module and may not
diff at all: ``tests/unit/runtime/test_lazy_re.py``). Literals are found
faster by a regular expression than by ``bytes.find``."""


def _pattern(name: str) -> re.Pattern[bytes]:
    """The byte pattern ``name`` (``open``, ``surrogate``, ``comment``, ``linkref``)."""
    pattern = _PATTERNS.get(name)
    if pattern is None:
        source = {
            "open": b"\n" + codeblocks._BLOCK_OPEN_BODY.encode(),
            "surrogate": b"\xed[\xa0-\xbf]",
            "comment": re.escape(b"<!--"),
            "linkref": re.escape(b"[//]:"),
        }[name]
        pattern = _PATTERNS[name] = re.compile(source)
    return pattern


_MIN_WINDOW = 1 << 12


_CLOSERS: dict[bytes, re.Pattern[bytes]] = {}


def _closer(run: bytes) -> re.Pattern[bytes]:
    """The closing-fence line pattern for the fence ``run`` (as ``codeblocks``)."""
    pattern = _CLOSERS.get(run)
    if pattern is None:
        body = rb"\n {0,3}" + re.escape(run[:1]) + b"{%d,}" % len(run)
        pattern = _CLOSERS[run] = re.compile(body + rb"[ \t]*(?=\n|\Z)")
    return pattern


def _line_end(data: bytes, pos: int) -> int:
    nl = data.find(b"\n", pos)
    return len(data) if nl < 0 else nl + 1


def block_spans(
    data: bytes, start: int = 0, stop: int | None = None
) -> list[tuple[int, int]]:
    """Fenced and comment blocks of ``data`` from the line start ``start`` on
    (outside any block), as :func:`codeblocks.block_ranges` finds them, merged;
    with ``stop``, only those that open before it."""
    out: list[tuple[int, int]] = []
    size = len(data)
    limit = size if stop is None else min(_line_end(data, stop), size)
    first = _pattern("open").match(b"\n" + data[start : _line_end(data, start)])
    opened = (
        None
        if first is None
        else (first.group(1) or first.group(2) or b"", start + first.end() - 1)
    )
    line, pos = start, start
    while True:
        if opened is None:
            m = _pattern("open").search(data, pos, limit)
            if m is None:
                return out
            line = m.start() + 1
            opened = m.group(1) or m.group(2) or b"", m.end()
        run, after = opened
        if run:
            close = _closer(run).search(data, after)
            end = size if close is None else _line_end(data, close.start() + 1)
        else:
            close_at = data.find(b"-->", after)
            end = size if close_at < 0 else _line_end(data, close_at)
        out.append((line, end))
        if end >= size:
            return out
        pos, opened = end - 1, None


def _inside(blocks: list[tuple[int, int]], at: int) -> bool:

    i = bisect_right(blocks, (at, 1 << 62)) - 1
    return i >= 0 and blocks[i][0] < at < blocks[i][1]


def _neutral(data: bytes, at: int, lo: int, blocks: list[tuple[int, int]]) -> bool:
    """Whether ``at`` (after a blank line) is a neutral point of ``data``: outside
    the blocks and with every ``<!--`` of ``data[lo:at]`` closed before it."""
    if _inside(blocks, at):
        return False
    opener = data.rfind(b"<!--", lo, at)
    return opener < 0 or 0 <= data.find(b"-->", opener + 4) <= at - 3


def is_neutral(data: bytes, at: int, blocks: list[tuple[int, int]]) -> bool:
    """Whether ``at`` is a neutral point of ``data`` (``blocks``: from 0)."""
    return data[at - 2 : at] == b"\n\n" and _neutral(data, at, 0, blocks)


def neutral_before(
    data: bytes, at: int, blocks: list[tuple[int, int]], lo: int = 0
) -> int:
    """The last neutral point of ``data`` at or before ``at`` (0 at worst);
    ``lo``: no ``<!--`` before it is open after it."""
    while at > 0:
        q = data.rfind(b"\n\n", 0, at - 1)
        if q < 0:
            return 0
        at = q + 2
        if _neutral(data, at, lo, blocks):
            return at
        at = q + 1
    return 0


def neutral_after(data: bytes, at: int, lo: int, blocks: list[tuple[int, int]]) -> int:
    """The first neutral point of ``data`` at or after ``at`` (its end at worst)."""
    while True:
        q = data.find(b"\n\n", max(at - 2, 0))
        if q < 0:
            return len(data)
        if _neutral(data, q + 2, lo, blocks):
            return q + 2
        at = q + 3


def stripped_lines(
    data: bytes, end: int, blocks: list[tuple[int, int]], begin: int = 0
) -> int:
    """Lines (``str.splitlines``) of the stripped ``data[begin:end]`` (both
    neutral, no line break but ``\n`` between them; ``blocks`` from ``begin``
    on at least): each comment is stripped in the small neutral chunk around it."""

    lines = data.count(b"\n", begin, end)
    at, link = begin, _first(_pattern("linkref"), data, begin, end)
    while True:
        if 0 <= link < at:
            link = _first(_pattern("linkref"), data, at, end)
        found = [
            x for x in (_first(_pattern("comment"), data, at, end), link) if x >= 0
        ]
        if not found:
            return lines
        lo = max(neutral_before(data, min(found) + 1, blocks, begin), at)
        hi = neutral_after(data, lo + 1, lo, blocks)
        chunk = data[lo:hi].decode("utf-8")
        lines -= chunk.count("\n") - strip_comments(chunk).count("\n")
        at = hi


def _first(literal: re.Pattern[bytes], data: bytes, lo: int, hi: int) -> int:
    """Where ``literal`` first occurs in ``data[lo:hi]``; -1 when it does not."""
    found = literal.search(data, lo, hi)
    return -1 if found is None else found.start()


def _other_breaks(data: bytes, end: int) -> bool:
    """Whether ``data[:end]`` holds a line break of ``str.splitlines`` other
    than ``\n`` and ``\r`` (a single byte is looked for first: ``memchr``)."""
    for sep in _OTHER_BREAKS:
        if data.find(sep[-1:], 0, end) >= 0 and re.compile(re.escape(sep)).search(
            data, 0, end
        ):
            return True  # a regular expression finds a literal faster than bytes.find
    return False


def _plain_bytes(a: bytes, b: bytes) -> bool:
    """Whether both sides are ``\\n``-ended UTF-8 as the fast path needs."""
    if b"\r" in a or b"\r" in b or b.startswith(b"\xef\xbb\xbf"):
        return False
    return not any(
        b"\xed" in side and _pattern("surrogate").search(side) for side in (a, b)
    )


def window_diff(
    previous: bytes,
    current: bytes,
    context: int,
    index: SnapIndex | None = None,
    *,
    head: int | None = None,
    checked: bool = False,
) -> str | object | None:
    """``compute_diff(previous.decode(), current.decode(), context)`` computed on
    the changed window only; :data:`PLAIN` when that cannot be shown the same.
    ``index``: :mod:`~agent_doc.document.snap_index`'s index of ``previous``
    (the scans then start at its last checkpoint before the window).
    What the caller knows already, so it is not searched again: ``head``,
    the length of the two sides' common prefix; ``checked``, both sides are
    valid UTF-8 (no encoded surrogate) and ``current`` holds no ``\r`` and
    no BOM (``previous`` is still searched for a ``\r``)."""

    a, b = previous, current
    if not (b"\r" not in a if checked else _plain_bytes(a, b)):
        return PLAIN
    if head is None:
        head = common_prefix(a, b, chunk=1 << 16)
    tail = common_suffix(a, b, min(len(a), len(b)) - head, chunk=1 << 16)
    if head == len(a) == len(b):
        return None
    margin, floor, blocks_a = _MIN_WINDOW, -1, []
    while True:
        base, base_lines = _base(a, max(head - margin, 0), index)
        if base != floor:  # the block scan starts at the checkpoint
            floor, blocks_a = base, block_spans(a, base)
        start = max(neutral_before(a, max(head - margin, 0), blocks_a, base), base)
        blocks_b = [r for r in blocks_a if r[1] <= start] + block_spans(b, start)
        shift = len(b) - len(a)
        end = max(len(a) - tail + margin, len(a) - tail)
        end = window_end(a, b, min(end, len(a)), start, blocks_a, blocks_b)
        old = strip_comments(a[start:end].decode("utf-8"))
        new = strip_comments(b[start : end + shift].decode("utf-8"))
        if old == new:
            return None
        la, lb = old.splitlines(keepends=True), new.splitlines(keepends=True)
        h = common_prefix(la, lb)
        t = common_suffix(la, lb, min(len(la), len(lb)) - h)
        whole_top, whole_end = start == 0, end == len(a)
        if (whole_top or h >= context) and (
            whole_end or (t >= context and h < min(len(la), len(lb)))
        ):
            if not whole_top and _breaks_before(a, start, index):
                return PLAIN
            offset = 0 if whole_top else base_lines + stripped_lines(
                a, start, blocks_a, base
            )  # fmt: skip
            return render_diff(la, lb, h, t, context, offset)
        margin *= 4


def _base(data: bytes, at: int, index: SnapIndex | None) -> tuple[int, int]:
    """Where the scans of ``data`` up to ``at`` may start: the index's last
    checkpoint at or before ``at`` and its stripped line count (0, 0 without
    an index, or with one that does not describe ``data``)."""
    if index is None or index.size != len(data):
        return 0, 0
    base, lines = index.checkpoint(at)
    if base and data[base - 2 : base] != b"\n\n":  # not this text's index
        return 0, 0
    return base, lines


def _breaks_before(data: bytes, at: int, index: SnapIndex | None) -> bool:
    """Whether ``data[:at]`` holds a line break other than ``\n`` and ``\r``."""
    if index is not None and index.size == len(data):
        return index.breaks_before(at)
    return _other_breaks(data, at)


def window_end(
    a: bytes, b: bytes, at: int, start: int,
    blocks_a: list[tuple[int, int]], blocks_b: list[tuple[int, int]],
) -> int:  # fmt: skip
    """The first offset of ``a`` at or after ``at`` that is neutral in ``a`` and,
    shifted, in ``b`` (the suffix from there is the same text on both sides)."""
    shift = len(b) - len(a)
    while True:
        end = neutral_after(a, at, start, blocks_a)
        if end >= len(a):
            return end
        there = end + shift  # a line start after a blank line in ``b`` too
        if b[there - 2 : there] == b"\n\n" and _neutral(b, there, start, blocks_b):
            return end
        at = end + 1


def diff_texts(
    previous: str, current: str, context: int, index: SnapIndex | None = None
) -> str | None:
    """``compute_diff(previous, current, context)``, on their UTF-8 through the
    window when that decides (a large document then costs its encoding, not
    its stripping and line split); the plain diff otherwise. ``index``: the
    index of ``previous``'s UTF-8 (:func:`window_diff`)."""

    try:
        old, new = previous.encode("utf-8"), current.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a live buffer): plain path
        return compute_diff(previous, current, context)
    diff = window_diff(old, new, context, index)
    del old, new
    return compute_diff(previous, current, context) if diff is PLAIN else diff  # type: ignore[return-value]


def same_after(previous: str, current: str, bare: Callable[[str], str]) -> bool:
    """``bare(previous) == bare(current)``, decided on the changed window only.

    ``bare`` must change lines one at a time, as the code state allows (a
    marker line outside code removed, a heading's suffix dropped), so it
    gives the same on both sides of a neutral point; the shared prefix and
    suffix then come out the same and only the window is compared.
    """
    try:
        a, b = previous.encode("utf-8"), current.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the whole texts
        return bare(previous) == bare(current)
    return same_after_utf8(a, b, bare)


def same_after_utf8(
    a: bytes, b: bytes, bare: Callable[[str], str], index: SnapIndex | None = None
) -> bool:
    """:func:`same_after` of two texts given as their UTF-8 (valid, as a
    ``str`` encodes; only the window is decoded); ``index``: ``a``'s
    (:func:`window_diff`)."""
    head = common_prefix(a, b, chunk=1 << 16)
    tail = common_suffix(a, b, min(len(a), len(b)) - head, chunk=1 << 16)
    if head == len(a) == len(b):
        return True
    base = _base(a, head, index)[0]
    blocks_a = block_spans(a, base)
    start = max(neutral_before(a, head, blocks_a, base), base)
    blocks_b = [r for r in blocks_a if r[1] <= start] + block_spans(b, start)
    end = window_end(a, b, len(a) - tail, start, blocks_a, blocks_b)
    old = a[start:end].decode("utf-8")
    new = b[start : end + len(b) - len(a)].decode("utf-8")
    del a, b
    return bare(old) == bare(new)
