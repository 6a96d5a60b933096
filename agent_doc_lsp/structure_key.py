"""The structure key of an open document, and the rule that keeps it.

:class:`StructureKey` stands for a document's structure while every change
is neutral (:mod:`agent_doc.document.neutral_edit`); :func:`neutral_change`
classes one incremental change of
:class:`~agent_doc_lsp.chunked_text.ChunkedText` from slices around it, and
:func:`outside_frontmatter` tells whether it lies after the frontmatter.
``FastTextDocument`` replaces its key at every other change.
"""

from __future__ import annotations

from agent_doc.document.neutral_edit import FRONTMATTER_SPAN
from agent_doc.document.neutral_edit import NEXT_LINE_HEAD
from agent_doc.document.neutral_edit import frontmatter_clear
from agent_doc.document.neutral_edit import neutral_enter
from agent_doc.document.neutral_edit import neutral_line_edit
from agent_doc.document.neutral_edit import neutral_line_fill
from agent_doc_lsp.chunked_text import CHUNK
from agent_doc_lsp.chunked_text import ChunkedText

__all__ = ["StructureKey", "neutral_change", "outside_frontmatter"]


class StructureKey:
    """Identity of a document's structure across neutral edits."""

    __slots__ = ("enters", "lines")

    def __init__(self) -> None:
        self.lines: set[int] | None = set()
        """The lines edited (neutrally) under this key, numbered as in the
        current text; ``None`` once it is replaced."""
        self.enters: list[int] = []
        """The line of each neutral Enter under this key, in order, each
        numbered as in the text it was typed in: the lines after it moved
        down one (:func:`~agent_doc.document.neutral_edit.shifted_line`)."""

    def note(self, line: int, enter: bool) -> None:
        """Note a neutral edit of ``line``; ``enter``: a line break typed in
        it (the line and the new one after it count as edited)."""
        lines = self.lines
        if lines is None:
            return
        if enter:
            moved = [at for at in lines if at > line]
            lines.difference_update(moved)
            lines.update(at + 1 for at in moved)
            lines.add(line + 1)
            self.enters.append(line)
        lines.add(line)


def neutral_change(
    text: ChunkedText, line: int, start: int, end: int, new: str
) -> bool | None:
    """Whether replacing ``[start, end)`` (within ``line``) by ``new`` is
    a neutral Enter (``True``), another neutral edit (``False``) or not
    neutral (``None``)."""
    line_start, line_end = text.line_start(line), text.line_end(line)
    old_line = text.slice(line_start, line_end)
    after = text.slice(line_end + 1, line_end + 1 + NEXT_LINE_HEAD)
    next_head = after.split("\n", 1)[0]
    if new == "\n" and start == end:
        return True if neutral_enter(old_line, start - line_start, next_head) else None
    if "\n" in new:
        return None
    new_line = old_line[: start - line_start] + new + old_line[end - line_start :]
    if old_line or line == 0:
        return False if neutral_line_edit(old_line, new_line, next_head) else None
    above = text.line_start(line - 1)
    if line_start - 1 - above > CHUNK:
        return None
    previous = text.slice(above, line_start - 1)
    return False if neutral_line_fill(previous, new_line, next_head) else None


def outside_frontmatter(text: ChunkedText, start: int) -> bool:
    """:func:`frontmatter_clear` of an edit at ``start``, reading the
    text's first 4 K characters when the block closes within them."""
    if text.slice(0, 4) != "---\n":
        return True  # no frontmatter: no need to find its end
    limit = min(start, FRONTMATTER_SPAN) + 5
    head = text.slice(0, min(limit, 4096))
    if len(head) < limit and "\n---\n" not in head:
        head = text.slice(0, limit)
    return frontmatter_clear(head, start)
