"""What the next submit will send: the regions changed since the snapshot.

The agent receives :func:`agent_doc.document.diff.compute_diff` of the snapshot
and the document, comments stripped. :func:`unsent_changes` marks, in the live
text, the line regions that diff will carry (code ``unsent``) and the HTML
comments the person added, which it will not (code ``private``), and counts the
changes and lines of the diff itself for the Submit lens. Pure: text in, plain
values out; the caller caches the snapshot. The version may be a ``str`` or
a :class:`~agent_doc.document.textlike.ChunkView` of the server's chunks, read
only in the changed window, unless a person's comment lies there (inline code
is told on the whole text) or a carriage return (the full comparison).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.diff import strip_comments
from agent_doc.document.lineage import common_ends
from agent_doc.document.linediff import Hunk
from agent_doc.document.linediff import diff_lines
from agent_doc.document.linediff import split_lines
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import contains
from agent_doc.document.textlike import same_text
from agent_doc.document.textlike import whole
from agent_doc.editor._sent_blocks import Blocks
from agent_doc.editor._sent_blocks import outside_blocks
from agent_doc.editor._textwindow import FixedText
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


def _region(starts: _Starts, j1: int, j2: int, removed: int) -> Problem:
    """A hint over lines ``[j1, j2)`` (or the line after a pure deletion)."""
    if j1 == j2:  # lines removed here: mark the line that now follows them
        if len(starts) < 2:  # everything removed: an empty text
            start = end = 0
        else:
            line = min(j1, len(starts) - 2)
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


def _private_comments(text: TextLike, start: int, end: int) -> list[Problem]:
    """The person's comments inside ``text[start:end]`` (markers excluded).
    Only that span is read, unless it holds one: whether it sits in inline
    code is asked of the whole text (a view is joined then)."""
    found: list[Problem] = []
    code: CodeIndex | None = None
    span = text[start:end]
    if "<!--" not in span:
        return found
    for m in _COMMENT.finditer(span):
        if _MARKER.fullmatch(m.group(1)):
            continue
        code = code or CodeIndex(str(text))
        at, end_at = start + m.start(), start + m.end()
        if not code.contains(at):
            found.append(Problem(at, end_at, "private, not sent", "hint", PRIVATE))
    return found


class FullBaseline:
    """A snapshot prepared once, compared whole with each version of the buffer.

    The plain computation: both texts are split into lines and diffed; only
    the changed line regions are comment-stripped. A region inside fenced
    code counts as content, one inside an HTML comment block as private (as
    :func:`~agent_doc.document.diff.strip_comments` treats them).
    :class:`UnsentBaseline` gives the same answer from the changed window
    only; this one serves texts with carriage returns, and the tests.
    """

    def __init__(self, snapshot: str) -> None:
        self.snapshot = snapshot
        """The snapshot text."""
        self._lines = _lines(snapshot)
        text = snapshot.replace("\r\n", "\n")
        self._blocks = Blocks(text, self._lines, _starts(self._lines))

    def changes(self, current: str) -> UnsentSummary:
        """What the next diff will carry from the snapshot to ``current``."""
        if current == self.snapshot:
            return UnsentSummary(True, 0, 0, 0, ())
        crlf = "\r\n" in current
        text = current.replace("\r\n", "\n") if crlf else current
        new = split_lines(text)
        starts = _line_starts(current) if crlf else _starts(new)
        blocks = Blocks(text, new, starts if not crlf else _starts(new))
        hunks = diff_lines(self._lines, new)
        return _summarize(hunks, self._blocks, blocks, starts, current, 0)


class UnsentBaseline:
    """A snapshot prepared once, to compare many versions of the buffer with.

    Gives what :class:`FullBaseline` gives, from the window of whole lines
    where the version differs from the snapshot
    (:meth:`~agent_doc.editor._textwindow.FixedText.window`: one ``memcmp``
    pass, no split of the version): only that window is split and diffed,
    with the fences and comment blocks of the whole texts as context. A text
    with a carriage return in that window (or in the snapshot) goes to
    :class:`FullBaseline`. A version noted as an edit of the last one compared
    (:mod:`agent_doc.document.lineage`) is compared only where the note does
    not say it equals that one.
    """

    def __init__(self, snapshot: TextLike) -> None:
        self.snapshot = snapshot
        """The snapshot text (a ``str`` or a view: never joined and kept)."""
        plain = not contains(snapshot, "\r")
        self._fixed = FixedText(snapshot) if plain else None
        self._context = Blocks(snapshot, [], [0]) if plain else None
        self._full: FullBaseline | None = None
        self._last: tuple[TextLike, int, int] | None = None
        """The last version compared, its common prefix with the snapshot and
        its common suffix (not limited by the prefix)."""

    def _full_baseline(self) -> FullBaseline:
        if self._full is None:
            self._full = FullBaseline(whole(self.snapshot))
        return self._full

    def changes(self, current: TextLike) -> UnsentSummary:
        """What the next diff will carry from the snapshot to ``current``
        (a ``str`` or a view: read only in the changed window)."""
        if same_text(current, self.snapshot):
            return UnsentSummary(True, 0, 0, 0, ())
        fixed, context = self._fixed, self._context
        if fixed is None or context is None:
            return self._full_baseline().changes(str(current))
        window = fixed.window(current, self._ends(fixed, current))
        part = current[window.start : window.other_end]
        if "\r" in part:
            return self._full_baseline().changes(str(current))
        old = split_lines(self.snapshot[window.start : window.fixed_end])
        new = split_lines(part)
        old_starts = [*accumulate(map(len, old), initial=window.start)]
        new_starts = [*accumulate(map(len, new), initial=window.start)]
        starts = _ShiftedStarts(
            fixed.starts, window.first, new_starts, len(new) - len(old),
            len(current) - len(self.snapshot),
        )  # fmt: skip
        # the blocks of the version: scanned from a line start outside every
        # block of the snapshot (the texts are equal before the window)
        restart = outside_blocks(window.start, context, len(self.snapshot))
        local = current[restart : window.other_end]
        return _summarize(
            diff_lines(old, new),
            Blocks(self.snapshot, old, old_starts, context),
            Blocks(local, new, new_starts, shift=restart),
            starts,
            current,
            window.first,
        )

    def _ends(self, fixed: FixedText, current: TextLike) -> tuple[int, int]:
        """The common prefix and suffix of the snapshot and ``current``: the
        last version's where ``current`` was noted as an edit of it that left
        them alone, else compared from where the note says they agree."""
        kept = self._last  # one read: another thread may compare meanwhile
        agreed = None if kept is None else common_ends(kept[0], current)
        _last, known_head, known_tail = kept or ("", 0, 0)
        if agreed is not None and agreed.head > known_head:
            head = known_head  # the snapshot differs there, the version not
        else:
            head = fixed.common_prefix(current, agreed.head if agreed else 0)
        if agreed is not None and agreed.tail > known_tail:
            tail = known_tail
        else:
            limit = min(len(self.snapshot), len(current))
            tail = fixed.common_suffix(current, limit, agreed.tail if agreed else 0)
        self._last = (current, head, tail)
        return head, tail


class _ShiftedStarts:
    """Line starts of a version, from the snapshot's outside the window."""

    __slots__ = ("_first", "_line_shift", "_offset_shift", "_snapshot", "_window")

    def __init__(
        self,
        snapshot: Sequence[int],
        first: int,
        window: list[int],
        line_shift: int,
        offset_shift: int,
    ) -> None:
        self._snapshot = snapshot
        self._first = first
        self._window = window
        self._line_shift = line_shift
        self._offset_shift = offset_shift

    def __len__(self) -> int:
        return len(self._snapshot) + self._line_shift

    def __getitem__(self, line: int) -> int:
        if line <= self._first:
            return self._snapshot[line]
        if line - self._first < len(self._window):
            return self._window[line - self._first]
        return self._snapshot[line - self._line_shift] + self._offset_shift


class _Starts(Protocol):
    """Line starts of a text by line number, then its length."""

    def __len__(self) -> int: ...
    def __getitem__(self, line: int, /) -> int: ...


def _summarize(
    hunks: list[Hunk],
    old: Blocks,
    new: Blocks,
    starts: _Starts,
    current: TextLike,
    base: int,
) -> UnsentSummary:
    """The summary of ``hunks`` (line numbers relative to ``base``, the first
    line ``old`` and ``new`` hold); ``starts`` are absolute."""
    changes = added = removed = 0
    marks: list[Problem] = []
    for i1, i2, j1, j2 in hunks:
        old_part = old.sent_text(i1, i2)
        new_part = new.sent_text(j1, j2)
        if old_part != new_part:
            for a1, a2, b1, b2 in diff_lines(
                split_lines(old_part), split_lines(new_part)
            ):
                changes += 1
                added += b2 - b1
                removed += a2 - a1
            first, last = _without_comment_lines(new.lines, j1, j2)
            if not new_part.strip():  # only comments left: a removal
                first = last = j2
            marks.append(_region(starts, first + base, last + base, i2 - i1))
        marks.extend(_private_comments(current, starts[j1 + base], starts[j2 + base]))
    return UnsentSummary(True, changes, added, removed, tuple(marks))


def unsent_changes(snapshot: TextLike | None, current: TextLike) -> UnsentSummary:
    """What the next diff will carry from ``snapshot`` to ``current``.

    Marks: one ``unsent`` hint per changed line region whose change survives
    comment stripping, one ``private`` hint per HTML comment inside a changed
    region. Counts are the lines and hunks of that comment-stripped diff.
    """
    if snapshot is None:
        return UnsentSummary(False, 0, 0, 0, ())
    return UnsentBaseline(snapshot).changes(current)
