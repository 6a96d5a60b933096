"""Whether an edit inside one line can change the document's structure.

The editor features derived from a document's structure — the outline
(components, frontmatter, ATX headings outside code), the component problems,
the stale boundaries, the backlog item problems and the frontmatter problems —
read only these lines and characters:

* marker and HTML comment lines (``<!--``, ``-->``, ``<!-- agent:…``), fences
  (a line opening with ````` or ``~``), ATX headings (``#``), setext
  underlines and thematic breaks (``=``, ``-``, ``*``, ``_``), list item starts
  (``-``, ``+``, ``*``, ``1.``) and blank lines, which end the paragraphs
  that pair inline code spans (:mod:`agent_doc.document.codeblocks`);
* backticks anywhere (inline code hides markers and headings);
* ``[``, ``]`` and ``#`` in a backlog's item lines (:mod:`agent_doc.editor.backlog`);
* the frontmatter: the text from a leading ``---`` line to its closing one.

An edit is *neutral* when it removes and inserts no line break and the line
it edits is a prose line before and after it (:func:`prose_line`): its first
character after the indentation is a letter, the indentation is the same, and
it holds none of the characters above nor a line separator ``str.splitlines``
knows. Such an edit moves no offset of any other line, changes no line
number, and no answer of those features has a position on a prose line, so
each answer stays exactly what it was (the equality tests in
``tests/lsp/test_structure_reuse.py`` drive both paths with the same edits).
Anything else is treated as a change of structure: the caller recomputes.
"""

from __future__ import annotations

from agent_doc.document.frontmatter_text import MAX_FRONTMATTER_CHARS

__all__ = [
    "FRONTMATTER_SPAN",
    "NEXT_LINE_HEAD",
    "frontmatter_clear",
    "neutral_line_edit",
    "prose_line",
]

_SPECIAL = frozenset("<>`~#[]|\\\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
"""Characters a prose line never holds (the ``\\r`` ending a CRLF line aside)."""

_UNDERLINE = frozenset("=-*_ \t\r")

NEXT_LINE_HEAD = 256
"""Characters of the line after the edited one that :func:`neutral_line_edit`
reads (enough to tell a setext underline from prose)."""

FRONTMATTER_SPAN = 2 * MAX_FRONTMATTER_CHARS + 16
"""Past this offset an edit of a prose line cannot change the frontmatter
block or its error: the block's size stays over the limit either way."""


def _indent(line: str) -> int:
    """Length of the line's leading spaces and tabs."""
    return len(line) - len(line.lstrip(" \t"))


def prose_line(line: str) -> bool:
    """Whether ``line`` (without its ``\\n``) is a prose line: a letter after
    its indentation, and none of the characters structure is made of."""
    if line.endswith("\r"):
        line = line[:-1]
    first = _indent(line)
    if first >= len(line) or not line[first].isalpha():
        return False
    return _SPECIAL.isdisjoint(line)


def neutral_line_edit(old_line: str, new_line: str, next_head: str) -> bool:
    """Whether editing ``old_line`` into ``new_line`` (each without its
    ``\\n``; the edit removed and inserted no line break) leaves the structure
    unchanged. ``next_head`` is the start of the following line (up to
    :data:`NEXT_LINE_HEAD` characters), ``""`` at the end of the text."""
    if not (prose_line(old_line) and prose_line(new_line)):
        return False
    indent = _indent(old_line)
    if _indent(new_line) != indent or old_line[:indent] != new_line[:indent]:
        return False
    # a prose line above a setext underline would be a heading's title
    return not (next_head.strip(" \t\r") and _UNDERLINE.issuperset(next_head))


def frontmatter_clear(head: str, start: int) -> bool:
    """Whether an edit at ``start`` lies outside the frontmatter.

    ``head`` is the text's first ``min(start, FRONTMATTER_SPAN) + 5``
    characters (or all of it when shorter)."""
    if not head.startswith("---\n"):
        return True  # no frontmatter block (split_frontmatter's rule)
    close = head.find("\n---\n", 3)
    if close >= 0:
        return close + 5 <= start  # the edit is on a line after the block
    return start >= FRONTMATTER_SPAN
