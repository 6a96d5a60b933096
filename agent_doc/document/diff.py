"""What changed since the agent last saw the document: comment stripping and diffs.

HTML comments and ``[//]: # (...)`` lines are the user's scratchpad: they are
removed from both sides before diffing, so editing them never wakes the agent.
Component markers (``<!-- agent:NAME -->``, ``<!-- /agent:NAME -->``) stay, so
the agent sees where content lives; boundary markers
(``<!-- agent:boundary:ID -->``) are bookkeeping and are stripped like comments.
Anything inside fenced code or inline code spans is content and is kept.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.codeblocks import CodeIndex
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["compute_diff", "render_diff", "strip_comments"]

DEFAULT_CONTEXT = 5
"""Lines of unchanged context around each hunk (spec §7.28)."""

# A ``[//]: # (...)`` comment line, matched at its line's start.
_LINKREF = lazy_compile(
    r"[ ]{0,3}\[//\]:[ \t]+#"
    r"(?:[ \t]+(?:\([^\n]*\)|\"[^\n]*\"|'[^\n]*'))?[ \t]*(?:\n|\Z)"
)
_KEPT_MARKER = lazy_compile(r"/?agent:[a-zA-Z0-9][a-zA-Z0-9-]*(?:\s.*)?", re.DOTALL)
_HUNK = lazy_compile(r"@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@")


def _next_linkref(text: str, search: int) -> re.Match[str] | None:
    """The first ``[//]: #`` comment line starting at or after ``search``."""
    at = text.find("[//]:", search)
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        if line_start >= search and not text[line_start:at].strip(" "):
            m = _LINKREF.match(text, line_start)
            if m is not None:
                return m
        at = text.find("[//]:", at + 1)
    return None


def _is_kept(inner: str) -> bool:
    """Whether a comment body is a component marker (boundary markers are not)."""
    return _KEPT_MARKER.fullmatch(inner.strip()) is not None


def _emitted_line_tail(out: list[str]) -> str:
    """The text already emitted on the current output line (after its last ``\\n``)."""
    tail: list[str] = []
    for piece in reversed(out):
        cut = piece.rfind("\n")
        if cut >= 0:
            tail.append(piece[cut + 1 :])
            break
        tail.append(piece)
    return "".join(reversed(tail))


def _trim_emitted_blanks(out: list[str]) -> None:
    """Drop spaces and tabs at the end of the emitted output (current line only)."""
    while out:
        trimmed = out[-1].rstrip(" \t")
        if trimmed:
            out[-1] = trimmed
            return
        out.pop()


def strip_comments(text: str) -> str:
    """Remove HTML comments and ``[//]: #`` comment lines outside code.

    A comment alone on its line(s) is removed with the whole line, newline
    included; a comment ending a line takes the blanks before it (so a note
    added after a sentence changes nothing); any other comment is removed
    alone and leaves the surrounding spaces (``"a <!-- x --> b"`` becomes
    ``"a  b"``). Component markers, code and an unclosed ``<!--`` are kept.
    """
    if "<!--" not in text and "[//]:" not in text:
        return text
    code = CodeIndex(text)
    out: list[str] = []
    pos = 0  # text[pos:] has not been emitted yet
    search = 0
    size = len(text)
    link = _next_linkref(text, 0) if "[//]:" in text else None
    while True:
        start = text.find("<!--", search)
        if link is not None and link.start() < search:
            link = _next_linkref(text, search)
        if link is not None and (start < 0 or link.start() < start):
            start = link.start()
            if not code.contains(start):
                out.append(text[pos:start])
                pos = link.end()
            search = link.end()
            continue
        if start < 0:
            break
        if code.contains(start):
            search = start + 4
            continue
        close = text.find("-->", start + 4)
        if close < 0:
            break
        end = close + 3
        search = end
        if _is_kept(text[start + 4 : close]):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        if line_start >= pos:
            before = text[line_start:start]
        else:
            before = _emitted_line_tail(out) + text[pos:start]
        eol = text.find("\n", end)
        eol = size if eol < 0 else eol
        ends_line = not text[end:eol].strip(" \t")
        if before.strip(" \t"):
            out.append(text[pos:start])
            if ends_line:  # no trailing blanks left where the comment was
                _trim_emitted_blanks(out)
            pos = eol if ends_line else end
            continue
        if not ends_line:
            out.append(text[pos:start])
            pos = end
            continue
        out.append(text[pos : max(line_start, pos)])
        _trim_emitted_blanks(out)
        pos = search = min(eol + 1, size)
    if pos == 0:  # nothing removed
        return text
    out.append(text[pos:])
    return "".join(out)


def compute_diff(
    previous: str, current: str, context: int = DEFAULT_CONTEXT
) -> str | None:
    """Unified line diff from ``previous`` (snapshot) to ``current`` (document).

    Both sides are compared after :func:`strip_comments` and with CRLF read as
    ``\\n``; ``None`` when they are then equal. Headers are ``--- snapshot`` and
    ``+++ document``; each hunk has ``context`` lines around it; a last line
    without newline is followed by ``\\ No newline at end of file``.
    """
    old = strip_comments(previous.replace("\r\n", "\n"))
    new = strip_comments(current.replace("\r\n", "\n"))
    if old == new:
        return None
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    head, tail = _common_ends(a, b)
    return render_diff(a, b, head, tail, context)


def render_diff(
    a: list[str], b: list[str], head: int, tail: int, context: int, offset: int = 0
) -> str:
    """The unified diff of the stripped lines ``a`` → ``b`` sharing ``head``
    leading and ``tail`` trailing lines; ``offset`` lines precede them both
    (:mod:`.diff_window` diffs a window of the document)."""
    skip = max(head - context, 0)
    drop = max(tail - context, 0)
    a, b = a[skip : len(a) - drop], b[skip : len(b) - drop]
    lines: Iterable[str] | None = _one_hunk(a, b, head - skip, tail - drop)
    if lines is None:
        import difflib  # only a diff that needs it pays for it

        lines = difflib.unified_diff(a, b, "snapshot", "document", n=context)
    out: list[str] = []
    skip += offset
    for line in lines:
        if skip and line.startswith("@@"):
            line = _shift_hunk(line, skip)
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def _one_hunk(a: list[str], b: list[str], head: int, tail: int) -> list[str] | None:
    """``difflib.unified_diff(a, b, "snapshot", "document")`` without difflib, for
    the common case where its answer is known; ``None`` otherwise.

    ``a`` and ``b`` share ``head`` leading and ``tail`` trailing lines, at most
    the context each (the region between them changed). When no changed line of
    one side occurs anywhere in the other, difflib can only match the shared
    lines in place, giving one hunk over both lists: shared head, ``-`` lines,
    ``+`` lines, shared tail. Two cases are left to difflib: 200 lines or more
    (its popular-line heuristic), and an insertion or deletion whose shared tail
    is longer than its head and occurs earlier in the unchanged side (difflib
    matches its first occurrence). ``tests/unit/document/test_diff_fast.py`` compares
    this with difflib on random inputs.
    """
    if len(b) >= 200 or head < 0 or tail < 0:
        return None
    removed, added = a[head : len(a) - tail], b[head : len(b) - tail]
    if not set(removed).isdisjoint(b) or not set(added).isdisjoint(a):
        return None
    if not (removed and added) and tail > head:
        same = b if removed else a  # the side that is head + tail only
        ending = same[head:]
        if any(same[i : i + tail] == ending for i in range(head)):
            return None
    return [
        "--- snapshot\n",
        "+++ document\n",
        f"@@ -{_range(len(a))} +{_range(len(b))} @@\n",
        *[" " + line for line in a[:head]],
        *["-" + line for line in removed],
        *["+" + line for line in added],
        *[" " + line for line in a[len(a) - tail :]],
    ]


def _range(length: int) -> str:
    """A hunk range from line 1, as difflib writes it."""
    if length == 1:
        return "1"
    return f"{1 if length else 0},{length}"


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """Counts of equal leading and trailing lines (not overlapping)."""
    head = common_prefix(a, b)
    return head, common_suffix(a, b, min(len(a), len(b)) - head)


def _shift_hunk(header: str, offset: int) -> str:
    """Move a hunk header's line numbers down by ``offset`` trimmed lines."""

    def shift(m: re.Match[str]) -> str:
        old, new = int(m.group(1)) + offset, int(m.group(3)) + offset
        return f"@@ -{old}{m.group(2)} +{new}{m.group(4)} @@"

    return _HUNK.sub(shift, header, count=1)
