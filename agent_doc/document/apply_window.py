"""content_ours of a large document built on its UTF-8 around its markers.

:func:`~agent_doc.document.apply.build_content_ours` decodes only the text
around the markers here (a long conversation costs a few byte scans, not its
decoded text).

An answer changes a document at its component and boundary markers (the
``exchange``'s end, a ``status`` near the top) and its frontmatter; the long
stretches of conversation between markers are only carried along. Each such
stretch, cut at *neutral points* of :mod:`~agent_doc.document.diff_window` (a
line start after a blank line, outside every fenced block and comment block,
no ``<!--`` open across it) and holding no marker-like ``<!-- agent:`` at all,
is replaced by a placeholder paragraph: one line of a NUL, a fixed token and
a NUL (a document holds no NUL: it is refused when read; one found here
takes the plain path), then a blank line.
The plain function runs on that small text; each placeholder is then found
once, in order, still after a blank line, and its stretch is put back as a
view of the document's bytes.

Why that gives the plain result: code spans and comment stripping stop at a
blank line, fenced blocks are balanced across a stretch (both ends outside
them), so markers and code outside the stretches are found the same; the
stretch ends before a non-blank line, so the de-duplication and the overlap
check, which look back to the last non-blank line, stop after it; line counts
(the person's protected lines) change by the same amount on both sides of
every comparison. Anything else answers ``None`` and the caller takes the
plain path: a small or non-plain text, a component with a line limit, a
placeholder lost (a ``replace`` of the component holding it) or moved, an
error (raised again by the plain path, with the document's line numbers), a
frontmatter patch (its warnings are logged once, by the plain path).
``tests/unit/document/test_apply_window.py`` drives both paths with the same
random documents and responses.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right

from agent_doc.document.apply import build_content_ours
from agent_doc.document.component_config import resolve_max_lines
from agent_doc.document.components import scan_components
from agent_doc.document.diff_window import block_spans
from agent_doc.document.diff_window import neutral_after
from agent_doc.document.diff_window import neutral_before
from agent_doc.document.frontmatter_text import frontmatter_end_utf8
from agent_doc.document.patch_blocks import HAS_COMPONENT_SOURCE
from agent_doc.document.patch_blocks import patch_block_warnings
from agent_doc.errors import AgentDocError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from agent_doc.document.component_config import ComponentConfig
    from agent_doc.document.components import Component
    from agent_doc.document.snap_index import Segment
    from agent_doc.document.snap_index import SnapIndex

__all__ = ["WINDOW_FROM", "OursUTF8", "block_warnings_utf8", "ours_utf8", "stretches"]

WINDOW_FROM = 1 << 18
"""Documents smaller than this take the plain path (it is as cheap)."""
_STRETCH = 1 << 15
"""The shortest stretch worth eliding."""
_MARGIN = 1 << 11
"""Bytes kept on each side of a marker (a heading check, the overlap check and
the de-duplication look a few lines back from an edit)."""


_SPACES = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters ``\\s`` matches in a ``str`` pattern."""


class OursUTF8:
    """content_ours as UTF-8 pieces: the small text around the markers
    (encoded) and the elided stretches (views of the document's bytes)."""

    __slots__ = ("pieces", "segments", "size", "window")

    def __init__(
        self,
        pieces: tuple[bytes | memoryview, ...],
        window: str,
        segments: tuple[Segment, ...] = (),
    ) -> None:
        self.pieces = pieces
        """content_ours in order (never joined here)."""
        self.segments = segments
        """Where each stretch is, in content_ours and in the document."""
        self.size = sum(map(len, pieces))
        """Its length in bytes."""
        self.window = window
        """content_ours with each stretch as its placeholder: holds every
        marker of content_ours (a stretch holds none)."""

    def join(self) -> bytes:
        """content_ours as one bytes object."""
        return b"".join(self.pieces)

    def text(self) -> str:
        """content_ours decoded."""
        return self.join().decode("utf-8")

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer when it is shorter)."""
        out: list[bytes] = []
        for piece in self.pieces:
            if size <= 0:
                break
            out.append(bytes(piece[:size]))
            size -= len(piece)
        return b"".join(out)


def marker_starts(data: bytes, start: int) -> list[int]:
    """Where ``<!--[ \\t]*/?agent:`` matches in ``data`` from ``start`` on:
    what every component and boundary marker starts with."""
    if not _MARKERISH:  # compiled on first use (test_lazy_re)
        _MARKERISH.append(re.compile(rb"<!--[ \t]*/?agent:"))
    return [m.start() for m in _MARKERISH[0].finditer(data, start)]


_MARKERISH: list[re.Pattern[bytes]] = []


def line_is_blank(data: bytes, at: int) -> bool:
    """Whether the line of ``data`` that starts at ``at`` holds only whitespace."""
    end = data.find(b"\n", at)
    return not data[at : len(data) if end < 0 else end].decode("utf-8").strip()


def stretches(
    data: bytes,
    index: SnapIndex | None = None,
    *,
    since: int | None = None,
    blocks_of: Callable[[], list[tuple[int, int]]] | None = None,
) -> list[tuple[int, int]]:
    """The stretches of ``data`` (plain UTF-8) that content_ours carries along
    unchanged (see the module docstring), in order. ``index``: ``data``'s
    (:mod:`~agent_doc.document.snap_index`): the blocks are then scanned from
    the checkpoints around each stretch's ends only (the whole scan when a
    checkpoint used is not after a blank line: not ``data``'s index).
    ``since``: a neutral point past the frontmatter: only the stretches after
    it (the blocks scanned from it on). ``blocks_of``: answers ``data``'s
    block spans, asked only when a gap is long enough and no index serves."""
    start = frontmatter_end_utf8(data) if since is None else since
    floor = 0 if since is None else since  # no ``<!--`` before it is open after it
    gaps = _gaps(data, start)
    if not gaps:
        return []
    if index is not None and index.size == len(data):
        found = _stretches_indexed(data, index, gaps, start, floor)
        if found is not None:
            return found
    blocks = block_spans(data, floor) if blocks_of is None else blocks_of()
    out: list[tuple[int, int]] = []
    for lo, hi in gaps:
        # ``<!--`` open across a point: the one at ``lo`` (a marker) or later,
        # or (first gap) one before ``floor`` (in the frontmatter)
        first = neutral_after(data, lo + max(_MARGIN, 1), 0, blocks)  # after lo
        since_lo = lo if lo > start else floor
        end = _end_before(data, hi - _MARGIN, blocks, since_lo, first)
        if end - first >= _STRETCH:
            out.append((first, end))
    return out


def _gaps(data: bytes, start: int) -> list[tuple[int, int]]:
    """The spans between two markers of ``data`` after ``start`` (and its
    end) long enough to hold a stretch."""
    if start >= len(data):
        return []
    edges = [start, *marker_starts(data, start), len(data)]
    return [(lo, hi) for lo, hi in itertools.pairwise(edges) if hi - lo > _STRETCH]


def _end_before(
    data: bytes, at: int, blocks: list[tuple[int, int]], since: int, start: int
) -> int:
    """The last neutral point at or before ``at`` whose line is not blank
    (``start`` or before when there is none after ``start``)."""
    end = neutral_before(data, at, blocks, since)
    while end > start and line_is_blank(data, end):
        end = neutral_before(data, end - 1, blocks, since)
    return end


def _stretches_indexed(
    data: bytes,
    index: SnapIndex,
    gaps: list[tuple[int, int]],
    start: int,
    floor: int,
) -> list[tuple[int, int]] | None:
    """:func:`stretches` of the ``gaps`` between markers with ``data``'s
    index; ``None`` when a checkpoint used is not after a blank line of
    ``data`` (not its index: the caller scans it whole)."""
    out: list[tuple[int, int]] = []
    for lo, hi in gaps:
        first = _start_indexed(data, lo + max(_MARGIN, 1), index)
        if first is None:
            return None
        since = lo if lo > start else floor
        end = _end_indexed(data, hi - _MARGIN, index, since, first)
        if end is None:
            return None
        if end - first >= _STRETCH:
            out.append((first, end))
    return out


def _checkpoint(data: bytes, index: SnapIndex, at: int) -> int | None:
    """The index's last checkpoint at or before ``at``; ``None`` when it is
    not a line start after a blank line of ``data``."""
    point = index.checkpoint(at)[0]
    return point if point == 0 or data[point - 2 : point] == b"\n\n" else None


def _start_indexed(data: bytes, at: int, index: SnapIndex) -> int | None:
    """The first neutral point at or after ``at``, found with the blocks
    from the checkpoint before it up to the next one (that one at worst)."""
    base = _checkpoint(data, index, at)
    i = bisect_right(index.offsets, at)
    stop = index.offsets[i] if i < len(index.offsets) else len(data)
    if base is None or (stop < len(data) and data[stop - 2 : stop] != b"\n\n"):
        return None
    return min(neutral_after(data, at, base, block_spans(data, base, stop)), stop)


def _end_indexed(
    data: bytes, at: int, index: SnapIndex, since: int, start: int
) -> int | None:
    """:func:`_end_before` with the blocks from the checkpoint before ``at``
    (earlier checkpoints when no point after it will do; never ``at`` itself,
    as :func:`neutral_before`)."""
    base = _checkpoint(data, index, at - 1)
    if base is None or base <= start:
        return None if base is None else start
    blocks = block_spans(data, base, at)
    end = max(_end_before(data, at, blocks, max(since, base), base), base)
    while end > start and line_is_blank(data, end):  # (``end`` is a checkpoint)
        checkpoint = _checkpoint(data, index, end - 1)
        if checkpoint is None:
            return None
        end = checkpoint
    return end


def _placeholder(token: str, index: int) -> str:
    return f"\0{token}-{index}\0\n\n"


def ours_utf8(
    data: bytes,
    response: str,
    configs: Mapping[str, ComponentConfig],
    *,
    boundary_id: str | None = None,
    snap_index: SnapIndex | None = None,
) -> OursUTF8 | None:
    """``build_content_ours(data.decode(), response, configs, boundary_id=…)``
    as UTF-8 pieces, decoding only around the markers; ``None`` when only the
    plain path can tell (see the module docstring). ``data`` must be plain
    UTF-8 (no BOM, no ``\\r``, checked valid: a stretch is never decoded);
    ``snap_index``: its index (:func:`stretches`)."""
    if len(data) < WINDOW_FROM or "\0" in response:
        return None
    if "patch:frontmatter" in response:  # it may log: once, by the plain path
        return None
    spans = stretches(data, snap_index)
    if not spans:
        return None
    if b"\0" in data:  # a placeholder must be the only NUL line (no dice here)
        return None
    token = "agent-doc-stretch"
    parts, pos = [], 0
    for index, (start, end) in enumerate(spans):
        parts += [data[pos:start].decode("utf-8"), _placeholder(token, index)]
        pos = end
    parts.append(data[pos:].decode("utf-8"))
    small = "".join(parts)
    try:
        if any(resolve_max_lines(c, configs)[0] > 0 for c in _components(small)):
            return None
        ours = build_content_ours(small, response, configs, boundary_id=boundary_id)
    except AgentDocError:
        return None  # the plain path raises it, with the document's lines
    pieces = _put_back(ours, data, spans, token)
    if pieces is None:
        return None
    return OursUTF8(pieces, ours, _segments(pieces, spans))


def _components(text: str) -> list[Component]:
    return scan_components(text).components


def _put_back(
    ours: str, data: bytes, spans: list[tuple[int, int]], token: str
) -> tuple[bytes | memoryview, ...] | None:
    """``ours`` with each placeholder replaced by its stretch of ``data``;
    ``None`` when one is missing, doubled or no longer after a blank line."""
    whole = memoryview(data)
    out: list[bytes | memoryview] = []
    pos = 0
    for index, (start, end) in enumerate(spans):
        mark = _placeholder(token, index)
        at = ours.find(mark, pos)
        if at < 2 or ours[at - 2 : at] != "\n\n" or ours.find(mark, at + 1) >= 0:
            return None
        out += [ours[pos:at].encode("utf-8"), whole[start:end]]
        pos = at + len(mark)
    out.append(ours[pos:].encode("utf-8"))
    return tuple(piece for piece in out if len(piece))


def _segments(
    pieces: tuple[bytes | memoryview, ...], spans: list[tuple[int, int]]
) -> tuple[Segment, ...]:
    """Where each stretch (a view of the document) is in ``pieces`` joined."""
    out, at, stretch = [], 0, iter(spans)
    for piece in pieces:
        if isinstance(piece, memoryview):
            start, _end = next(stretch)
            out.append((at, start, len(piece)))
        at += len(piece)
    return tuple(out)


def block_warnings_utf8(response: str, data: bytes) -> list[str]:
    """``patch_block_warnings(response, data.decode())``, decoding only the
    text around each occurrence of a named component's opener."""
    return patch_block_warnings(
        response, data[: frontmatter_end_utf8(data)].decode("utf-8"),
        has_component=lambda name: _has_component_utf8(data, name),
    )  # fmt: skip


def _has_component_utf8(data: bytes, name: str) -> bool:
    """Whether the UTF-8 text ``data`` has an opener of component ``name`` as
    :func:`~agent_doc.document.patch_blocks.patch_block_warnings` finds one:
    each ``agent:NAME`` is checked on the text from the ``<!--`` before it."""
    pattern = re.compile(HAS_COMPONENT_SOURCE.format(re.escape(name)))
    needle = f"agent:{name}".encode()
    at = data.find(needle)
    while at >= 0:
        opener = data.rfind(b"<!--", 0, at)
        stop = min(at + len(needle) + 4, len(data))
        gap = data[opener + 4 : at] if opener >= 0 else b""
        long_text = len(gap) > 256 and gap.isascii() and gap.translate(None, _SPACES)
        if opener >= 0 and not long_text:
            piece = data[opener:stop].decode("utf-8", "ignore")
            if pattern.match(piece):
                return True
        at = data.find(needle, at + 1)
    return False
