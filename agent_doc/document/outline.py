"""The section structure of a markdown document (``agent-doc outline``, spec §7.17).

Sections start at ATX headings (``#`` … ``######``) outside fenced code and
HTML comment blocks; each runs to the next heading of any depth. Text before
the first heading (after the YAML frontmatter) is the ``(preamble)`` section.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges

__all__ = ["PREAMBLE", "Section", "outline", "render_outline_text"]

PREAMBLE = "(preamble)"
"""Heading shown for content before the first heading."""

_HEADING = lazy_compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$", re.MULTILINE)
_CLOSING = lazy_compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FRONTMATTER_END = lazy_compile(r"^---[ \t]*$\n?", re.MULTILINE)


class Section(Record):
    """One section of the outline."""

    __slots__ = ("heading", "depth", "line", "lines", "tokens")

    def __init__(
        self,
        heading: str,
        depth: int,
        line: int,
        lines: int,
        tokens: int,
    ) -> None:
        self.heading = heading
        """Heading text without the ``#`` marks, or ``(preamble)``."""
        self.depth = depth
        """Heading level 1–6; 0 for the preamble."""
        self.line = line
        """1-based line of the heading in the file (preamble: its first line)."""
        self.lines = lines
        """Number of content lines below the heading, up to the next heading."""
        self.tokens = tokens
        """Approximate token count of the whole section: UTF-8 bytes / 4."""

    def as_dict(self) -> dict[str, str | int]:
        """The JSON object form: heading, depth, line, lines, tokens."""
        return {
            "heading": self.heading,
            "depth": self.depth,
            "line": self.line,
            "lines": self.lines,
            "tokens": self.tokens,
        }


def _body_start(text: str) -> int:
    """Offset just after a leading ``---`` YAML frontmatter block (0 if none)."""
    if not text.startswith("---\n"):
        return 0
    end = _FRONTMATTER_END.search(text, 4)
    return end.end() if end is not None else 0


def _heading_text(raw: str | None) -> str:
    """The heading's text with an optional closing ``#`` sequence removed."""
    if not raw:
        return ""
    return _CLOSING.sub("", raw).strip()


def outline(text: str) -> list[Section]:
    """The sections of ``text`` in document order (frontmatter skipped)."""
    body = _body_start(text)
    fences, comments = block_ranges(text)
    skip = CodeRanges(sorted(fences + comments))
    starts: list[tuple[int, str, int]] = []  # (offset, heading, depth)
    for m in _HEADING.finditer(text, body):
        if not skip.contains(m.start()):
            starts.append((m.start(), _heading_text(m.group(2)), len(m.group(1))))
    sections: list[Section] = []
    first = starts[0][0] if starts else len(text)
    if text[body:first].strip():
        line = text.count("\n", 0, body) + 1
        preamble = text[body:first]
        sections.append(_section(PREAMBLE, 0, preamble, line, heading_line=False))
    line = text.count("\n", 0, first) + 1
    for i, (start, heading, depth) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        chunk = text[start:end]
        sections.append(_section(heading, depth, chunk, line, heading_line=True))
        line += chunk.count("\n")  # the next heading's line, counted once (linear)
    return sections


def _section(
    heading: str, depth: int, chunk: str, line: int, *, heading_line: bool
) -> Section:
    """The section whose text is ``chunk``, starting on 1-based ``line``."""
    count = chunk.count("\n") + (0 if chunk.endswith("\n") or not chunk else 1)
    return Section(
        heading=heading,
        depth=depth,
        line=line,
        lines=count - 1 if heading_line else count,
        tokens=len(chunk.encode("utf-8", "surrogatepass")) // 4,
    )


def render_outline_text(sections: list[Section]) -> str:
    """An indented text table (section, line, lines, tokens) for the terminal."""
    labels = [
        ("  " * max(s.depth - 1, 0))
        + ("#" * s.depth + " " if s.depth else "")
        + s.heading
        for s in sections
    ]
    width = max([len("SECTION"), *map(len, labels)])
    rows = [f"{'SECTION':<{width}}  {'LINE':>6}  {'LINES':>6}  {'TOKENS':>7}"]
    for label, s in zip(labels, sections, strict=True):
        rows.append(f"{label:<{width}}  {s.line:>6}  {s.lines:>6}  {s.tokens:>7}")
    return "\n".join(rows) + "\n"
