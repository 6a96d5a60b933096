"""What the next submit will send: the regions changed since the snapshot.

The agent receives :func:`agent_doc.document.diff.compute_diff` of the snapshot
and the document, comments stripped. :func:`unsent_changes` marks, in the live
text, the line regions that diff will carry (code ``unsent``) and the HTML
comments the person added, which it will not (code ``private``), and counts the
changes and lines of the diff itself for the Submit lens. Pure: text in, plain
values out; the caller caches the snapshot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.diff import strip_comments
from agent_doc.document.linediff import diff_lines
from agent_doc.document.linediff import split_lines
from agent_doc.editor.model import Problem

UNSENT = "unsent"
"""Diagnostic code of a region the next diff carries."""
PRIVATE = "private"
"""Diagnostic code of a comment the person typed (never sent)."""

_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_MARKER = re.compile(  # component and boundary markers: the tool's, not private
    r"\s*/?agent:[a-zA-Z0-9][a-zA-Z0-9-]*(?::[0-9a-zA-Z]+)?(?:\s.*)?", re.DOTALL
)


@dataclass(frozen=True, slots=True)
class UnsentSummary:
    """The changes the next submit sends, and the marks that show them."""

    has_snapshot: bool
    """Whether a snapshot exists (without one the whole document is sent)."""
    changes: int
    """Hunks of the diff the agent receives (0: nothing to send)."""
    added: int
    """Lines added in that diff."""
    removed: int
    """Lines removed in that diff."""
    marks: tuple[Problem, ...]
    """``unsent`` and ``private`` hints over the live text."""

    def lens_title(self) -> str:
        """The Submit lens title, e.g. ``Submit · 3 changes (+12 −2 lines)``."""
        if not self.has_snapshot:  # the first submit sends the whole document
            return "Submit"
        if not self.changes:
            return "Submit · nothing new"
        noun = "change" if self.changes == 1 else "changes"
        return f"Submit · {self.changes} {noun} (+{self.added} −{self.removed} lines)"


def _lines(text: str) -> list[str]:
    """Lines with CRLF read as LF (for comparing), each keeping its ``\\n``."""
    return split_lines(text.replace("\r\n", "\n"))


def _starts(lines: list[str]) -> list[int]:
    """Offset of every line start of ``lines`` joined, plus the end."""
    return [0, *accumulate(map(len, lines))]


def _line_starts(text: str) -> list[int]:
    """Offset of every line start in ``text`` (split at ``\\n``), plus the end."""
    return [0, *accumulate(len(line) for line in split_lines(text))]


def _region(starts: list[int], j1: int, j2: int, removed: int) -> Problem:
    """A hint over lines ``[j1, j2)`` (or the line after a pure deletion)."""
    if j1 == j2:  # lines removed here: mark the line that now follows them
        line = min(j1, len(starts) - 2) if len(starts) > 1 else 0
        start, end = starts[line], max(starts[line], starts[line + 1] - 1)
        noun = "line" if removed == 1 else "lines"
        message = f"will be sent: {removed} {noun} removed here"
        return Problem(start, end, message, "hint", UNSENT)
    end = max(starts[j1], starts[j2] - 1)  # up to the last line's newline
    return Problem(starts[j1], end, "will be sent", "hint", UNSENT)


def _comment_only(line: str) -> bool:
    return bool(line.strip()) and not strip_comments(line).strip()


def _without_comment_lines(lines: list[str], j1: int, j2: int) -> tuple[int, int]:
    """``[j1, j2)`` without the comment-only lines at its ends (boundaries, notes)."""
    while j1 < j2 and _comment_only(lines[j1]):
        j1 += 1
    while j2 > j1 and _comment_only(lines[j2 - 1]):
        j2 -= 1
    return j1, j2


def _private_comments(text: str, start: int, end: int) -> list[Problem]:
    """The person's comments inside ``text[start:end]`` (markers excluded)."""
    found: list[Problem] = []
    code: CodeIndex | None = None
    for m in _COMMENT.finditer(text, start, end):
        if _MARKER.fullmatch(m.group(1)):
            continue
        code = code or CodeIndex(text)
        if not code.contains(m.start()):
            found.append(
                Problem(m.start(), m.end(), "private, not sent", "hint", PRIVATE)
            )
    return found


class UnsentBaseline:
    """A snapshot prepared once, to compare many versions of the buffer with.

    Only the changed line regions are comment-stripped and diffed, so a run
    costs a line split and a prefix/suffix scan plus work proportional to the
    edits. A region inside fenced code counts as content, one inside an HTML
    comment block as private (as :func:`~agent_doc.document.diff.strip_comments`
    treats them).
    """

    def __init__(self, snapshot: str) -> None:
        self.snapshot = snapshot
        """The snapshot text."""
        self._lines = _lines(snapshot)
        text = snapshot.replace("\r\n", "\n")
        self._blocks = _Blocks(text, self._lines, _starts(self._lines))

    def changes(self, current: str) -> UnsentSummary:
        """What the next diff will carry from the snapshot to ``current``."""
        if current == self.snapshot:
            return UnsentSummary(True, 0, 0, 0, ())
        crlf = "\r\n" in current
        text = current.replace("\r\n", "\n") if crlf else current
        new = split_lines(text)
        starts = _line_starts(current) if crlf else _starts(new)
        blocks = _Blocks(text, new, starts if not crlf else _starts(new))
        changes = added = removed = 0
        marks: list[Problem] = []
        for i1, i2, j1, j2 in diff_lines(self._lines, new):
            old_part = self._blocks.sent_text(i1, i2)
            new_part = blocks.sent_text(j1, j2)
            if old_part != new_part:
                for a1, a2, b1, b2 in diff_lines(
                    split_lines(old_part), split_lines(new_part)
                ):
                    changes += 1
                    added += b2 - b1
                    removed += a2 - a1
                first, last = _without_comment_lines(new, j1, j2)
                if not new_part.strip():  # only comments left: a removal
                    first = last = j2
                marks.append(_region(starts, first, last, i2 - i1))
            marks.extend(_private_comments(current, starts[j1], starts[j2]))
        return UnsentSummary(True, changes, added, removed, tuple(marks))


class _Blocks:
    """Fenced code and HTML comment blocks of one text, looked up by line."""

    def __init__(self, text: str, lines: list[str], starts: list[int]) -> None:
        self._text = text
        self._lines = lines
        self._starts = starts
        self._ranges: tuple[CodeRanges, CodeRanges] | None = None

    def _blocks(self) -> tuple[CodeRanges, CodeRanges]:
        if self._ranges is None:  # only for regions that hold comment syntax
            fences, comments = block_ranges(self._text)
            self._ranges = CodeRanges(fences), CodeRanges(comments)
        return self._ranges

    def _in_comment(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies inside an HTML comment block."""
        if "<!--" not in self._text:
            return False
        comments = self._blocks()[1]
        return comments.contains(start) and comments.contains(end - 1)

    def sent_text(self, first: int, last: int) -> str:
        """Lines ``[first, last)`` as the agent would see them (comments out)."""
        part = "".join(self._lines[first:last])
        if first == last:
            return part
        start, end = self._starts[first], self._starts[last]
        if "<!--" not in part and "-->" not in part and "[//]:" not in part:
            return "" if self._in_comment(start, end) else part
        fences, _comments = self._blocks()
        if fences.contains(start) and fences.contains(end - 1):
            return part  # inside fenced code: content
        return strip_comments(part)


def unsent_changes(snapshot: str | None, current: str) -> UnsentSummary:
    """What the next diff will carry from ``snapshot`` to ``current``.

    Marks: one ``unsent`` hint per changed line region whose change survives
    comment stripping, one ``private`` hint per HTML comment inside a changed
    region. Counts are the lines and hunks of that comment-stripped diff.
    """
    if snapshot is None:
        return UnsentSummary(False, 0, 0, 0, ())
    return UnsentBaseline(snapshot).changes(current)
