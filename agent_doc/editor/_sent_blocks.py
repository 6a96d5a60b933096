"""Fenced code and HTML comment blocks of the texts the unsent marks compare.

:class:`Blocks` tells, line by line, what the agent will see of a changed
region (comments stripped, fenced code kept as content);
:func:`outside_blocks` finds where the blocks of a version may be scanned
from. The snapshot's blocks are scanned once per snapshot, from the pieces
of its view (:func:`~agent_doc.document.piece_blocks.piece_block_ranges`: no
join).
"""

from __future__ import annotations

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.diff import strip_comments
from agent_doc.document.piece_blocks import piece_block_ranges
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import contains


def outside_blocks(offset: int, blocks: Blocks, size: int) -> int:
    """``offset`` (a line start), or the start of the fenced code or comment
    block of ``blocks`` (a text of ``size`` characters) holding it or left
    open before it (one reaching the end may go on in another text)."""
    restart = offset
    for ranges in blocks.ranges():
        if ranges.contains(offset):
            restart = min(restart, offset + ranges.within(offset, offset + 1)[0][0])
        elif ranges.ranges and ranges.ranges[-1][1] >= size:
            restart = min(restart, ranges.ranges[-1][0])
    return restart


class Blocks:
    """Fenced code and HTML comment blocks of one text, looked up by line.

    ``lines`` are lines of a text (all of them or a window) and ``starts``
    their offsets in it, then the end of the last. ``text`` is that text, or
    the part of it from ``shift`` on (a line start outside every block) past
    the lines; ``context`` shares the block ranges of another
    :class:`Blocks` of the same text.
    """

    def __init__(
        self,
        text: TextLike,
        lines: list[str],
        starts: list[int],
        context: Blocks | None = None,
        shift: int = 0,
    ) -> None:
        self._text = text
        self._shift = shift
        self.lines = lines
        """The lines looked up."""
        self._starts = starts
        self._context = context
        self._ranges: tuple[CodeRanges, CodeRanges] | None = None
        self._has_comment: bool | None = None

    def ranges(self) -> tuple[CodeRanges, CodeRanges]:
        """The fenced code and HTML comment blocks (absolute offsets)."""
        return self._blocks()

    def _blocks(self) -> tuple[CodeRanges, CodeRanges]:
        if self._context is not None:
            return self._context._blocks()
        if self._ranges is None:  # only for regions that hold comment syntax
            text = self._text
            if isinstance(text, str):
                fences, comments = block_ranges(text)
            else:  # a view (the snapshot's): scanned piece by piece, no join
                fences, comments = piece_block_ranges(text)
            if shift := self._shift:
                fences = [(a + shift, b + shift) for a, b in fences]
                comments = [(a + shift, b + shift) for a, b in comments]
            self._ranges = CodeRanges(fences), CodeRanges(comments)
        return self._ranges

    def _in_comment(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies inside an HTML comment block."""
        if self._has_comment is None:
            self._has_comment = contains(self._text, "<!--")
        if not self._has_comment:
            return False
        comments = self._blocks()[1]
        return comments.contains(start) and comments.contains(end - 1)

    def sent_text(self, first: int, last: int) -> str:
        """Lines ``[first, last)`` as the agent would see them (comments out)."""
        part = "".join(self.lines[first:last])
        if first == last:
            return part
        start, end = self._starts[first], self._starts[last]
        if "<!--" not in part and "-->" not in part and "[//]:" not in part:
            return "" if self._in_comment(start, end) else part
        fences, _comments = self._blocks()
        if fences.contains(start) and fences.contains(end - 1):
            return part  # inside fenced code: content
        return strip_comments(part)
