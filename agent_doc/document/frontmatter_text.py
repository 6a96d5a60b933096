"""Byte-preserving text edits of a document's YAML frontmatter block.

The block is ``---\\n`` at the very start of the document and a closing
``---`` line (spec §2.2). Edits work on whole top-level entries (a key line
plus its indented continuation lines) and leave every other byte alone, so
comments, order and quoting survive. :mod:`agent_doc.document.frontmatter` re-exports
the public names.
"""

from __future__ import annotations

import re

from agent_doc._runtime.lazy import KEY_CHARS
from agent_doc._runtime.lazy import KEY_START
from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.errors import FrontmatterError

__all__ = [
    "MAX_FRONTMATTER_CHARS",
    "FrontmatterBlock",
    "field_lines",
    "format_value",
    "frontmatter_end_utf8",
    "rename_field",
    "set_field",
    "split_frontmatter",
]

MAX_FRONTMATTER_CHARS = 64 * 1024
"""Frontmatter larger than this is refused (a document is not a YAML store)."""

_KEY_LINE = lazy_compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?=[ \t\r\n]|$)")
"""A top-level key line: what :func:`key_at` finds (kept for other readers)."""
_NON_PRINTABLE = lazy_compile(
    "[^\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_YAML_BREAKS = "\x85\u2028\u2029"  # line breaks to YAML, folded if left raw
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class FrontmatterBlock(Record):
    """The frontmatter block: ``yaml`` is ``text[yaml_start:yaml_end]``.

    ``end`` (= ``body_start``) is the offset after the closing ``---`` line.
    """

    __slots__ = ("yaml", "start", "end", "body_start", "yaml_start", "yaml_end")

    def __init__(
        self,
        yaml: str,
        start: int,
        end: int,
        body_start: int,
        yaml_start: int = 4,
        yaml_end: int = 4,
    ) -> None:
        self.yaml = yaml
        self.start = start
        self.end = end
        self.body_start = body_start
        self.yaml_start = yaml_start
        self.yaml_end = yaml_end


def split_frontmatter(text: str) -> FrontmatterBlock | None:
    """Locate the frontmatter block; None when the document has none.

    Raises :class:`FrontmatterError` when the opening ``---`` is never closed
    or the block is larger than :data:`MAX_FRONTMATTER_CHARS`.
    """
    if not text.startswith("---\n"):
        return None
    close = text.find("\n---\n", 3)
    if close >= 0:
        end = close + 5
    elif text.endswith("\n---") and len(text) >= 7:
        close, end = len(text) - 4, len(text)
    else:
        raise FrontmatterError("unterminated frontmatter: no closing '---' line", 1)
    yaml_end = max(close + 1, 4)
    if yaml_end - 4 > MAX_FRONTMATTER_CHARS:
        raise FrontmatterError(
            f"frontmatter is larger than {MAX_FRONTMATTER_CHARS // 1024} KB", 1
        )
    return FrontmatterBlock(text[4:yaml_end], 0, end, end, 4, yaml_end)


def frontmatter_end_utf8(data: bytes) -> int:
    """Where the frontmatter block of the UTF-8 text ``data`` ends, as
    :func:`split_frontmatter` finds it: 0 without one, ``len(data)`` when it is
    not closed. ``data[:end]`` decoded is all :func:`split_frontmatter` reads."""
    if not data.startswith(b"---\n"):
        return 0
    close = data.find(b"\n---\n", 3)
    return len(data) if close < 0 else close + 5


def _entries(yaml: str) -> list[tuple[str, int, int]]:
    """Top-level entries ``(key, first_line, end_line)`` over the YAML lines."""
    lines = yaml.split("\n")
    out: list[tuple[str, int, int]] = []
    i = 0
    while i < len(lines):
        found = key_at(lines[i])
        if found is None:
            i += 1
            continue
        j = i + 1
        last = i + 1
        while j < len(lines):
            if _continues(lines[j]):
                last = j + 1
            elif lines[j].strip():
                break
            j += 1
        out.append((found[0], i, last))
        i = last
    return out


def key_at(line: str) -> tuple[str, int] | None:
    """The key a top-level YAML line starts with and the offset after its
    colon: ``[A-Za-z_][A-Za-z0-9_-]*``, spaces or tabs, ``:``, then a space,
    tab, line break or the end; ``None`` for any other line. (What
    :data:`_KEY_LINE` matches, without compiling it: a write reads a few
    frontmatter lines.)"""
    if not line or line[0] not in KEY_START:
        return None
    size = len(line)
    end = size - len(line.lstrip(KEY_CHARS))
    colon = size - len(line[end:].lstrip(" \t"))
    after = line[colon + 1 : colon + 2]
    if not line.startswith(":", colon) or after not in ("", " ", "\t", "\r", "\n"):
        return None
    return line[:end], colon + 1


def _continues(line: str) -> bool:
    """True when ``line`` continues the entry above it: it starts with a space
    or tab, or is a ``-`` list item (``-`` then a space, tab or the end)."""
    first = line[:1]
    return first in (" ", "\t") or (first == "-" and line[1:2] in ("", " ", "\t"))


def field_lines(text: str) -> dict[str, int]:
    """Each top-level frontmatter key and its 0-based document line (last wins)."""
    try:
        block = split_frontmatter(text)
    except FrontmatterError:
        return {}
    if block is None:
        return {}
    return {key: first + 1 for key, first, _ in _entries(block.yaml)}


def format_value(value: str) -> str:
    """``value`` as a YAML scalar: plain when YAML reads it back as-is, else quoted."""
    if (
        value
        and value == value.strip()
        and not _NON_PRINTABLE.search(value)
        and not any(c in _YAML_BREAKS for c in value)
        and _reads_back(value)
    ):
        return value
    return '"' + "".join(_escape(c) for c in value) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if _NON_PRINTABLE.match(char) or char in _YAML_BREAKS:
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char


def _reads_back(value: str) -> bool:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        loaded = yaml.load(f"k: {value}\n", Loader=loader)
    except yaml.YAMLError:
        return False
    return isinstance(loaded, dict) and loaded == {"k": value}


def _splice(text: str, block: FrontmatterBlock, lines: list[str]) -> str:
    return text[: block.yaml_start] + "\n".join(lines) + text[block.yaml_end :]


def set_field(text: str, key: str, value: str | None) -> str:
    """Set (or with ``None`` remove) one top-level frontmatter key.

    Only that key's entry changes; a missing key is added at the end of the
    block, and a document without frontmatter gets a new block.
    """
    valid = key_at(key + ":")
    if valid is None or valid[1] != len(key) + 1:
        raise FrontmatterError(f"invalid frontmatter key {key!r}")
    block = split_frontmatter(text)
    if block is None:
        if value is None:
            return text
        return f"---\n{key}: {format_value(value)}\n---\n" + text
    lines = block.yaml.split("\n")
    found = [e for e in _entries(block.yaml) if e[0] == key]
    if not found:
        if value is None:
            return text
        lines.insert(len(lines) - 1, f"{key}: {format_value(value)}")
        return _splice(text, block, lines)
    _, first, end = found[-1]
    if value is None:
        for _, first, end in reversed(found):
            del lines[first:end]
    else:
        comment = _trailing_comment(lines[first]) if end == first + 1 else ""
        lines[first:end] = [f"{key}: {format_value(value)}{comment}"]
    return _splice(text, block, lines)


def rename_field(text: str, old: str, new: str) -> str:
    """Rename the top-level key ``old`` to ``new`` in place (value untouched)."""
    block = split_frontmatter(text)
    found = [e for e in _entries(block.yaml) if e[0] == old] if block else []
    if block is None or not found:
        return text
    lines = block.yaml.split("\n")
    first = found[-1][1]
    lines[first] = new + lines[first][len(old) :]
    return _splice(text, block, lines)


def _trailing_comment(line: str) -> str:
    """The `` # comment`` ending a one-line ``key: value`` entry, if any."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for m in re.finditer(r"[ \t]+#", line):
        try:
            yaml.load(line[: m.start()], Loader=loader)
        except yaml.YAMLError:
            continue
        return line[m.start() :]
    return ""
