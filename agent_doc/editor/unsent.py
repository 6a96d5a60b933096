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
from difflib import SequenceMatcher

from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.diff import strip_comments
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


def _raw_lines(text: str) -> list[str]:
    """Lines of ``text`` split at ``\n`` only, each keeping its ending."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _lines(text: str) -> list[str]:
    """Lines with CRLF read as LF (for comparing)."""
    return _raw_lines(text.replace("\r\n", "\n"))


def _trimmed_opcodes(
    a: list[str], b: list[str]
) -> list[tuple[str, int, int, int, int]]:
    """Non-equal opcodes of ``a`` → ``b``; equal ends are skipped first (fast)."""
    limit = min(len(a), len(b))
    head = 0
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail])
    return [
        (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        for tag, i1, i2, j1, j2 in middle.get_opcodes()
        if tag != "equal"
    ]


def _line_starts(lines: list[str]) -> list[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


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


def unsent_changes(snapshot: str | None, current: str) -> UnsentSummary:
    """What the next diff will carry from ``snapshot`` to ``current``.

    Marks: one ``unsent`` hint per changed line region whose change survives
    comment stripping, one ``private`` hint per HTML comment inside a changed
    region. Counts come from the comment-stripped diff the agent receives.
    """
    if snapshot is None:
        return UnsentSummary(False, 0, 0, 0, ())
    sent = _trimmed_opcodes(
        _lines(strip_comments(snapshot)), _lines(strip_comments(current))
    )
    added = sum(j2 - j1 for _t, _i1, _i2, j1, j2 in sent)
    removed = sum(i2 - i1 for _t, i1, i2, _j1, _j2 in sent)
    old, new = _lines(snapshot), _lines(current)
    starts = _line_starts(_raw_lines(current))
    marks: list[Problem] = []
    for _tag, i1, i2, j1, j2 in _trimmed_opcodes(old, new):
        old_part, new_part = "".join(old[i1:i2]), "".join(new[j1:j2])
        kept = strip_comments(new_part)
        if strip_comments(old_part) != kept:
            first, last = _without_comment_lines(new, j1, j2)
            if not kept.strip():  # only comments left: a removal
                first = last = j2
            marks.append(_region(starts, first, last, i2 - i1))
        marks.extend(_private_comments(current, starts[j1], starts[j2]))
    return UnsentSummary(True, len(sent), added, removed, tuple(marks))
