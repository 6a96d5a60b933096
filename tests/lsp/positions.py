"""LSP positions of plain text offsets, independent of ``agent_doc_lsp.convert``
(and of pytest-lsp, so unit tests that run without the test extras can use them)."""

from __future__ import annotations

from lsprotocol import types


def _width(ch: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    return 2 if ord(ch) > 0xFFFF else 1


def offset_of(text: str, pos: types.Position, encoding: str = "utf-16") -> int:
    """Code-point offset of ``pos`` in ``text`` under ``encoding``."""
    lines = text.split("\n")
    if pos.line >= len(lines):
        return len(text)
    offset = sum(len(line) + 1 for line in lines[: pos.line])
    used = 0
    for ch in lines[pos.line]:
        if used >= pos.character:
            break
        used += _width(ch, encoding)
        offset += 1
    return offset


def position_of(text: str, offset: int, encoding: str = "utf-16") -> types.Position:
    """LSP position of the code-point ``offset`` in ``text`` under ``encoding``."""
    before = text[:offset]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return types.Position(
        line=line, character=sum(_width(ch, encoding) for ch in column)
    )
