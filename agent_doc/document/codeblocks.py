"""Code ranges of a markdown document: fenced code blocks and inline code spans.

This runs on every keystroke in the language server, so it is a line-based
scanner built on a few literal-prefixed regular expressions (no markdown
parser). It follows CommonMark for what matters to agent-doc: markers inside
code must never count as component or boundary markers.

Fenced blocks: a line indented by at most 3 spaces opening with 3 or more
backticks (whose info string holds no backtick) or tildes; it is closed by a
line of the same character, at least as long, with nothing but spaces after;
an unclosed fence runs to the end of the document. HTML comment blocks (a line
starting with ``<!--`` up to the line holding ``-->``) are tracked too, since
fences and code spans cannot start inside them. Inline code spans pair
backtick strings of equal length within one paragraph
(:mod:`agent_doc.document.codespans`). Fences nested in list
items or block quotes are recognised only when indented by at most 3 spaces.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from bisect import bisect_right

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document._textmemo import TextMemo
from agent_doc.document._textmemo import restart_point
from agent_doc.document.codespans import inline_ranges as _inline_ranges
from agent_doc.document.codespans import line_end as _line_end
from agent_doc.document.codespans import paragraph as _paragraph

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.textlike import TextLike

__all__ = ["CodeIndex", "CodeRanges", "block_ranges", "code_index", "code_ranges"]

# Block openers. Lines are searched as "\n" + line so the pattern has a
# literal prefix (fast search); the first line is matched as "\n" + its copy.
# Groups: 1 backtick fence (its info string holds no backtick), 2 tilde fence;
# otherwise an HTML comment left open on its line (one-line comments are
# paragraph barriers only, see below).
_BLOCK_OPEN_BODY = r" {0,3}(?:(`{3,})[^`\n]*(?=\n|\Z)|(~{3,})[^\n]*|<!--(?![^\n]*-->))"
_BLOCK_OPEN = lazy_compile("\n" + _BLOCK_OPEN_BODY)
_CLOSERS: dict[tuple[str, int], re.Pattern[str]] = {}


def _closer(char: str, length: int) -> re.Pattern[str]:
    """The closing-fence line pattern for a fence of ``length`` ``char``s."""
    pattern = _CLOSERS.get((char, length))
    if pattern is None:
        run = re.escape(char) + "{" + str(length) + ",}"
        pattern = re.compile(r"\n {0,3}" + run + r"[ \t]*(?=\n|\Z)")
        _CLOSERS[(char, length)] = pattern
    return pattern


def block_ranges(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Return ``(fences, html_comments)``: sorted ``[start, end)`` line ranges.

    Both include whole lines (with the final ``\\n``); an unclosed fence or
    comment block runs to the end of the text. The last few texts' results
    are remembered (one write scans the same document several times); the
    caller gets its own lists.
    """
    fences, comments = _block_ranges_memo(text)
    return list(fences), list(comments)


def known_block_ranges(
    text: TextLike,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """:func:`block_ranges` of a ``str``; of a view (a version let go, see
    :func:`agent_doc.document.lineage.let_go`) only when remembered."""
    if isinstance(text, str):
        return block_ranges(text)
    found = _BLOCKS.get(text)
    return None if found is None else (list(found[0]), list(found[1]))


def scan_block_ranges(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """:func:`block_ranges` of ``text``, scanned and not remembered."""
    return _scan_blocks(text)


_BLOCKS: TextMemo[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]
_BLOCKS = TextMemo(8)


def _block_ranges_memo(
    text: str,
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    found = _BLOCKS.get(text)
    if found is None:
        found = _scan_after_latest(text)
        _BLOCKS.put(text, found)
    return found


def _scan_after_latest(
    text: str,
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Scan ``text``, reusing the blocks of the latest text before the point
    where the two differ (an answer spliced in near the end costs a scan of
    the end only)."""
    latest = _BLOCKS.latest_like(text)
    if latest is not None:
        old, (fences, comments) = latest
        restart = restart_point(old, text, _merge(list(fences), list(comments)))
        if restart:
            new_fences, new_comments = _scan_blocks(text, restart)
            return (
                tuple(r for r in fences if r[1] <= restart) + tuple(new_fences),
                tuple(r for r in comments if r[1] <= restart) + tuple(new_comments),
            )
    fences_found, comments_found = _scan_blocks(text)
    return tuple(fences_found), tuple(comments_found)


def clear_block_memo() -> None:
    """Forget the remembered block ranges and indexes (benchmarks of a first scan)."""
    _BLOCKS.clear()
    _INDEXES.clear()


def _scan_blocks(
    text: str, start: int = 0
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The blocks of ``text`` from the line start ``start`` on (outside any block)."""
    fences: list[tuple[int, int]] = []
    comments: list[tuple[int, int]] = []
    if "```" not in text and "~~~" not in text and "<!--" not in text:
        return fences, comments
    size = len(text)
    # ``opened``: the fence run ("" for a comment) of a block opening on the
    # line at ``line``, and where its opener ends in ``text``.
    opened = _opener_at(text, start)
    line = start
    pos = start  # where the next "\n"-prefixed search starts
    while True:
        if opened is None:
            m = _BLOCK_OPEN.search(text, pos)
            if m is None:
                break
            line = m.start() + 1
            opened = m.group(1) or m.group(2) or "", m.end()
        run, after = opened
        if run:
            close = _closer(run[0], len(run)).search(text, after)
            end = size if close is None else _line_end(text, close.start() + 1)
            fences.append((line, end))
        else:
            close_at = text.find("-->", after)
            end = size if close_at < 0 else _line_end(text, close_at)
            comments.append((line, end))
        if end >= size:
            break
        pos = end - 1  # the "\n" that ends the block
        opened = None
    return fences, comments


def _opener_at(text: str, start: int) -> tuple[str, int] | None:
    """The block opener on the line at ``start`` (its fence run, "" for a
    comment, and where it ends), matched as the ``"\n"``-prefixed pattern
    matches the line after a line break; ``None`` when the line opens none."""
    m = _BLOCK_OPEN.match("\n" + text[start : _line_end(text, start)])
    return None if m is None else (m.group(1) or m.group(2) or "", start + m.end() - 1)


def _merge(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge two sorted, disjoint range lists into one sorted list."""
    return sorted(a + b) if a and b else (a or b)


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint ``[start, end)`` offsets of fenced blocks and code spans."""
    fences, comments = block_ranges(text)
    if "`" not in text:
        return fences
    blocks = sorted(
        [(s, e, True) for s, e in fences] + [(s, e, False) for s, e in comments]
    )
    out: list[tuple[int, int]] = []
    pos = 0
    for start, end, is_fence in [*blocks, (len(text), len(text), False)]:
        if start > pos:
            out.extend(_inline_ranges(text, pos, start))
        if is_fence:
            out.append((start, end))
        pos = max(pos, end)
    return out


class CodeRanges:
    """Sorted, disjoint ``[start, end)`` ranges with a fast membership test."""

    __slots__ = ("_starts", "ranges")

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.ranges = ranges
        """The ranges."""
        self._starts = [s for s, _ in ranges]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodeRanges) and other.ranges == self.ranges

    __hash__ = None  # type: ignore[assignment]  # mutable list inside

    def __repr__(self) -> str:
        return f"CodeRanges(ranges={self.ranges!r})"

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside one of the ranges."""
        i = bisect_right(self._starts, offset) - 1
        return i >= 0 and offset < self.ranges[i][1]

    def within(self, start: int, end: int) -> list[tuple[int, int]]:
        """The ranges overlapping ``[start, end)``, relative to ``start``."""
        first = max(bisect_right(self._starts, start) - 1, 0)
        last = bisect_left(self._starts, end)
        return [(s - start, e - start) for s, e in self.ranges[first:last] if e > start]


class CodeIndex:
    """Lazy "is this offset inside code?" for one text.

    Fences are found eagerly (cheap); code spans are computed only for the
    paragraphs asked about, which keeps marker checks on big documents fast.
    """

    def __init__(
        self,
        text: str,
        *,
        blocks: tuple[list[tuple[int, int]], list[tuple[int, int]]] | None = None,
    ) -> None:
        """Index ``text``; ``blocks`` reuses a :func:`block_ranges` result."""
        self._text = text
        fences, comments = blocks if blocks is not None else block_ranges(text)
        self.fences = CodeRanges(fences)
        self.comments = CodeRanges(comments)
        self._blocks = CodeRanges(_merge(fences, comments))
        self._has_ticks = "`" in text
        self._span_cache: dict[int, CodeRanges] = {}
        self._ticks_cache: dict[int, bool] = {}

    def contains(self, offset: int) -> bool:
        """True when ``offset`` is inside a fenced block or an inline code span."""
        if self.fences.contains(offset):
            return True
        if not self._has_ticks or self.comments.contains(offset):
            return False
        block_lo, block_hi = self._between_blocks(offset)
        ticks = self._ticks_cache.get(block_lo)
        if ticks is None:  # no backtick between the blocks: no code span there
            ticks = self._text.find("`", block_lo, block_hi) >= 0
            self._ticks_cache[block_lo] = ticks
        if not ticks:
            return False
        lo, hi = _paragraph(self._text, offset, block_lo, block_hi)
        spans = self._span_cache.get(lo)
        if spans is None:
            spans = CodeRanges(_inline_ranges(self._text, lo, hi))
            self._span_cache[lo] = spans
        return spans.contains(offset)

    def _between_blocks(self, offset: int) -> tuple[int, int]:
        """The stretch between fenced blocks and comment blocks holding ``offset``
        (the paragraph around it, where code spans stay, lies inside)."""
        blocks = self._blocks
        i = bisect_right(blocks._starts, offset) - 1
        lo = blocks.ranges[i][1] if i >= 0 else 0
        hi = blocks.ranges[i + 1][0] if i + 1 < len(blocks.ranges) else len(self._text)
        return lo, hi


def code_index(text: str) -> CodeIndex:
    """The :class:`CodeIndex` of ``text``, shared by the callers asking about
    the same text (the last few texts' indexes are remembered, with the code
    spans they already found)."""
    index = _INDEXES.get(text)
    if index is None:
        index = CodeIndex(text)
        _INDEXES.put(text, index)
    return index


_INDEXES: TextMemo[CodeIndex] = TextMemo(2, holds_text=True)
