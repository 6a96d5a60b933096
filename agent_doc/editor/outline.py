"""Document structure for the editor: outline symbols, folding, session test.

Components become symbols named exactly after the component (nested ones as
children, ``detail`` = resolved patch mode), the frontmatter becomes a symbol
with its keys as children, and headings inside a component become that
component's children. Markers and headings inside code never count.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.components import Component
from agent_doc.document.frontmatter import field_lines
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.editor._heading_patch import shift_symbol as shifted
from agent_doc.editor.cache import fences
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Fold
from agent_doc.editor.model import Symbol
from agent_doc.editor.outline_build import MAX_SYMBOL_DEPTH
from agent_doc.editor.outline_build import OutlinePart
from agent_doc.editor.outline_build import marker_end
from agent_doc.editor.part_memo import PartMemo
from agent_doc.errors import AgentDocError

__all__ = [
    "MAX_SYMBOL_DEPTH",
    "OutlinePart",
    "folds",
    "is_session_document",
    "outline",
    "outline_parts",
]


def _frontmatter_symbol(text: str) -> Symbol | None:
    try:
        block = split_frontmatter(text)
    except AgentDocError:
        return None
    if block is None:
        return None
    children = []
    starts = [0, *(i + 1 for i, ch in enumerate(text[: block.end]) if ch == "\n")]
    for key, line in sorted(field_lines(text).items(), key=lambda kv: kv[1]):
        start = starts[line]
        end = text.find("\n", start, block.end)
        end = block.end if end < 0 else end
        children.append(Symbol(key, "", "field", start, end, start, start + len(key)))
    end = marker_end(text, 0, block.end)
    return Symbol("frontmatter", "", "frontmatter", 0, end, 0, 3, tuple(children))


def outline(
    text: str,
    configs: Mapping[str, ComponentConfig] | None = None,
    *,
    reuse: bool = True,
) -> list[Symbol]:
    """The document's outline: frontmatter first, then top-level components.

    ``reuse=False`` builds every entry afresh instead of reusing the entries of
    unchanged components outlined before (the result is the same).
    """
    parts = outline_parts(text, configs, reuse=reuse)
    return [shifted(part.symbol, part.base) for part in parts]


def outline_parts(
    text: str,
    configs: Mapping[str, ComponentConfig] | None = None,
    *,
    reuse: bool = True,
) -> list[OutlinePart]:
    """:func:`outline` as relative parts, reusing the parts of unchanged components."""
    configs = configs or {}
    comps = scan(text).components  # sorted by open_start
    parts = []
    front = _frontmatter_symbol(text)
    if front is not None:
        ends = [front.end, *(field.end for field in front.children)]
        parts.append(OutlinePart(0, max(ends), front))
    if comps:
        code = fences(text)
        if reuse:
            _PARTS.new_pass()
        parts += [
            _PARTS.get(text, group, code, configs, reuse=reuse)
            for group in _top_level(comps)
        ]
    return parts


def _top_level(comps: list[Component]) -> list[list[Component]]:
    """Each top-level component followed by the components nested in it."""
    groups: list[list[Component]] = []
    stack: list[Component] = []
    for c in comps:
        while stack and stack[-1].close_start <= c.open_end:
            stack.pop()
        if not stack:
            groups.append([])
        groups[-1].append(c)
        stack.append(c)
    return groups


_PARTS = PartMemo()


def folds(text: str) -> list[Fold]:
    """Foldable spans: the frontmatter block and every component."""
    out: list[Fold] = []
    try:
        block = split_frontmatter(text)
    except AgentDocError:
        block = None
    if block is not None:
        last = text.count("\n", 0, marker_end(text, 0, block.end))
        out.append(Fold(0, last, "frontmatter"))
    for c in scan(text).components:
        if c.close_line > c.open_line:
            out.append(Fold(c.open_line, c.close_line, "region"))
    return out


def _session_keys(text: str) -> bool:
    keys = field_lines(text)
    return any(k.startswith("agent_doc_") or k in ("session", "agent") for k in keys)


def is_session_document(text: str) -> bool:
    """True when ``text`` has agent-doc frontmatter or components."""
    if _session_keys(text):
        return True
    return "<!-- agent:" in text and bool(scan(text).components)


def is_session_head(head: str) -> bool:
    """True when a text starting with ``head`` is a session document by its
    frontmatter's keys, all of them in ``head`` (``False``: ask
    :func:`is_session_document` with the whole text)."""
    return head.find("\n---\n", 3) >= 0 and _session_keys(head)
