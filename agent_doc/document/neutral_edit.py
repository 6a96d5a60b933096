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

Two edits that add a line are neutral too (:func:`neutral_enter`), and the
answers stay exact once every line after the edited one is numbered one more
(:func:`shifted_line`): Enter inside a prose line that leaves a prose line on
both sides (the paragraph keeps its lines, one more of them), and Enter at the
end of a prose line followed by an empty line, the end of the text or a line
opening with ``<!--`` (the new empty line ends a paragraph that ended there
anyway: a blank line or a comment line is a barrier of its own,
:mod:`agent_doc.document.codespans`). Typing into an empty line is neutral
when the line above is a prose line and the line below one of those
(:func:`neutral_line_fill`): the paragraph above gains a line without a
backtick and still ends where it ended. Enter anywhere else — at the start of
a line, before a line of the paragraph (a blank line would split it: code
spans pairing across it, a setext underline or a lazy list line below), in a
heading, marker or fence line — and typing into an empty line elsewhere
change the structure as before.
Anything else is treated as a change of structure: the caller recomputes.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_doc.document.frontmatter_text import MAX_FRONTMATTER_CHARS

__all__ = [
    "FRONTMATTER_SPAN",
    "NEXT_LINE_HEAD",
    "frontmatter_clear",
    "neutral_enter",
    "neutral_line_edit",
    "neutral_line_fill",
    "prose_line",
    "shifted_line",
    "unshifted_line",
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
    return not _underline(next_head)


def _underline(line_head: str) -> bool:
    """Whether a line starting ``line_head`` may be a setext underline (a
    prose line above it would be a heading's title)."""
    return bool(line_head.strip(" \t\r")) and _UNDERLINE.issuperset(line_head)


def _ends_paragraph(next_head: str) -> bool:
    """Whether the line starting ``next_head`` (``""``: an empty line or the
    end of the text) ends a paragraph above it whatever is between them."""
    return next_head == "" or next_head.startswith("<!--")


def neutral_enter(old_line: str, column: int, next_head: str) -> bool:
    """Whether inserting one ``\\n`` at ``column`` of ``old_line`` (without
    its own ``\\n``) leaves the structure unchanged, every line after it
    moved down one. ``next_head`` is as for :func:`neutral_line_edit`."""
    if "\r" in old_line or not prose_line(old_line) or _underline(next_head):
        return False
    first, rest = old_line[:column], old_line[column:]
    if not prose_line(first):
        return False  # at the start of the line: a blank line above it
    if rest == "":
        return _ends_paragraph(next_head)
    return prose_line(rest)


def neutral_line_fill(previous: str, new_line: str, next_head: str) -> bool:
    """Whether typing ``new_line`` into an empty line leaves the structure
    unchanged; ``previous`` is the line above it and
    ``next_head`` as for :func:`neutral_line_edit`."""
    if "\r" in previous or "\r" in new_line:
        return False
    return prose_line(previous) and prose_line(new_line) and _ends_paragraph(next_head)


def shifted_line(line: int, enters: Sequence[int]) -> int:
    """The number of ``line`` after the neutral Enters typed on the lines
    ``enters`` (in order, each numbered as in the text it was typed in):
    one more for each typed on a line before it."""
    for at in enters:
        if line > at:
            line += 1
    return line


def unshifted_line(line: int, enters: Sequence[int]) -> int:
    """The line before the Enters ``enters`` that ``line`` comes from (the
    line split, for a line an Enter made)."""
    for at in reversed(enters):
        if line > at:
            line -= 1
    return line


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
