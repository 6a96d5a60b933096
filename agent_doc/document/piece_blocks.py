"""Fenced code and HTML comment blocks of a text read piece by piece.

:func:`~agent_doc.document.codeblocks.block_ranges` scans one ``str``. The
language server holds a document's snapshot as a view of pieces
(:class:`~agent_doc.document.textlike.ChunkView`) so that no whole ``str`` of
it is kept: joining one (4 bytes a character when the text holds one astral
character) only to scan it would cost a pass, a copy and a peak of the whole
text. :func:`piece_block_ranges` scans it a stretch of whole lines at a time
instead: every block a stretch holds that closes inside it is the whole text's
(a line opens a block by itself, and a stretch starts on a line outside every
block); one that runs to the stretch's end is scanned again with the next
stretch, which then holds at least as much new text as the open block (so a
block left open to the end costs a linear number of characters scanned).
"""

from __future__ import annotations

from agent_doc.document.codeblocks import scan_block_ranges
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import spans

STRETCH = 1 << 16
"""Characters gathered before a stretch is scanned (more behind an open block)."""

Ranges = list[tuple[int, int]]


def piece_block_ranges(text: TextLike, size: int = STRETCH) -> tuple[Ranges, Ranges]:
    """``(fences, html_comments)`` of ``text`` as
    :func:`~agent_doc.document.codeblocks.block_ranges` gives them, scanned
    from its pieces (a view is never joined) and not remembered."""
    fences: Ranges = []
    comments: Ranges = []
    base, rest = 0, ""  # ``rest``: the text from ``base`` on not settled yet
    parts: list[str] = []
    held = 0
    for _start, piece in spans(text):
        parts.append(piece)
        held += len(piece)
        if held < max(size, len(rest)):
            continue
        rest += "".join(parts)
        parts, held = [], 0
        cut = rest.rfind("\n") + 1  # a stretch of whole lines
        if cut:
            settled = _scan_stretch(rest[:cut], base, fences, comments)
            base += settled
            rest = rest[settled:]
    rest += "".join(parts)
    if rest:  # the end of the text: a block open here runs to the end
        found_fences, found_comments = scan_block_ranges(rest)
        fences += [(a + base, b + base) for a, b in found_fences]
        comments += [(a + base, b + base) for a, b in found_comments]
    return fences, comments


def _scan_stretch(stretch: str, base: int, fences: Ranges, comments: Ranges) -> int:
    """Add the blocks of ``stretch`` (at ``base`` in the text) that close
    inside it; return where the one running to its end starts (its length
    when none does): scanned again with what follows."""
    found_fences, found_comments = scan_block_ranges(stretch)
    settled = len(stretch)
    for found in (found_fences, found_comments):
        if found and found[-1][1] >= len(stretch):
            settled = min(settled, found.pop()[0])
    for found, into in ((found_fences, fences), (found_comments, comments)):
        into.extend((a + base, b + base) for a, b in found if b <= settled)
    return settled
