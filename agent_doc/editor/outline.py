"""Document structure for the editor: outline symbols, folding, session test.

Components become symbols named exactly after the component (nested ones as
children, ``detail`` = resolved patch mode), the frontmatter becomes a symbol
with its keys as children, and headings inside a component become that
component's children. Markers and headings inside code never count.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_doc.document._lazy_re import lazy_compile
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.components import Component
from agent_doc.document.frontmatter import field_lines
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.editor.cache import fences
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Fold
from agent_doc.editor.model import Symbol
from agent_doc.errors import AgentDocError

MAX_SYMBOL_DEPTH = 48
"""Components nested deeper are listed flat under their ancestor at this depth
(a deeper symbol tree overflows the recursion of the JSON serializer); the
``deep-nesting`` diagnostic says so."""

# literal "\n" prefix: ~8x faster than a MULTILINE "^" on large texts
_HEADING = lazy_compile(r"\n {0,3}#{1,6}[ \t][^\n]*")
_CLOSING = lazy_compile(r"(?:^|[ \t]+)#+[ \t]*$")


def _marker_end(text: str, start: int, end: int) -> int:
    """End of a marker span without its trailing newline."""
    return end - 1 if end > start and text[end - 1] == "\n" else end


def _name_span(text: str, comp_start: int, name: str) -> tuple[int, int]:
    at = text.find("agent:" + name, comp_start)
    return (at + 6, at + 6 + len(name)) if at >= 0 else (comp_start, comp_start)


def _mode(component: Component, configs: Mapping[str, ComponentConfig]) -> str:
    try:
        mode, _source = resolve_mode(component, configs)
    except AgentDocError:
        return "invalid mode"
    return mode


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
    end = _marker_end(text, 0, block.end)
    return Symbol("frontmatter", "", "frontmatter", 0, end, 0, 3, tuple(children))


def _headings(text: str, fences: CodeRanges) -> list[tuple[int, int, str]]:
    """``(start, end, title)`` of ATX headings outside fenced code."""
    if "#" not in text:
        return []
    found = [m.span() for m in _HEADING.finditer(text)]  # spans include the "\n"
    first = _HEADING.match("\n" + text[: text.find("\n") if "\n" in text else None])
    if first:
        found.insert(0, (-1, first.end() - 1))
    out = []
    code, count, at = fences.ranges, len(fences.ranges), 0
    for newline, end in found:
        start = newline + 1
        while at < count and code[at][1] <= start:  # both sorted: one merge pass
            at += 1
        if at < count and code[at][0] <= start:
            continue  # inside fenced code
        title = text[start:end].strip().lstrip("#").strip()
        if title.endswith("#"):
            title = _CLOSING.sub("", title)
        out.append((start, end, title))
    return out


def outline(
    text: str, configs: Mapping[str, ComponentConfig] | None = None
) -> list[Symbol]:
    """The document's outline: frontmatter first, then top-level components."""
    configs = configs or {}
    found_scan = scan(text)
    comps = found_scan.components  # sorted by open_start
    code = fences(text) if comps else CodeRanges([])
    heads = _headings(text, code) if comps else []
    children: dict[int, list[Symbol]] = {i: [] for i in range(len(comps))}
    # innermost component containing each heading: walk a stack of open ones
    events = sorted(
        [(c.open_end, 0, i) for i, c in enumerate(comps)]
        + [(h[0], 1, j) for j, h in enumerate(heads)]
    )
    stack: list[int] = []
    parent_of: dict[int, int] = {}
    for pos, kind, idx in events:
        while stack and comps[stack[-1]].close_start <= pos:
            stack.pop()
        if kind == 0:
            if stack:
                parent_of[idx] = stack[-1]
            stack.append(idx)
        elif stack:
            start, end, title = heads[idx]
            children[stack[-1]].append(
                Symbol(title or "#", "", "heading", start, end, start, end)
            )
    depth = _cap_depth(parent_of, len(comps))
    built: dict[int, Symbol] = {}
    nested: dict[int, list[Symbol]] = {i: [] for i in range(len(comps))}
    for i in sorted(range(len(comps)), key=lambda i: -depth[i]):
        c = comps[i]
        kids = sorted([*children[i], *nested[i]], key=lambda s: s.start)
        sel = _name_span(text, c.open_start, c.name)
        end = _marker_end(text, c.close_start, c.close_end)
        built[i] = Symbol(
            c.name, _mode(c, configs), "component", c.open_start, end, *sel, tuple(kids)
        )
        if i in parent_of:
            nested[parent_of[i]].append(built[i])
    top = [built[i] for i in range(len(comps)) if i not in parent_of]
    front = _frontmatter_symbol(text)
    return [front, *top] if front else top


def _cap_depth(parent_of: dict[int, int], count: int) -> list[int]:
    """Symbol depth of each component (1 = top), capped at ``MAX_SYMBOL_DEPTH + 1``.

    A component below the cap is re-parented (in ``parent_of``) to its ancestor
    at :data:`MAX_SYMBOL_DEPTH`. Components come sorted by start, parents first.
    """
    depth = [1] * count
    for i in range(count):
        parent = parent_of.get(i)
        if parent is None:
            continue
        if depth[parent] > MAX_SYMBOL_DEPTH:  # the parent was flattened too
            parent_of[i] = parent = parent_of[parent]
        depth[i] = depth[parent] + 1
    return depth


def folds(text: str) -> list[Fold]:
    """Foldable spans: the frontmatter block and every component."""
    out: list[Fold] = []
    try:
        block = split_frontmatter(text)
    except AgentDocError:
        block = None
    if block is not None:
        last = text.count("\n", 0, _marker_end(text, 0, block.end))
        out.append(Fold(0, last, "frontmatter"))
    for c in scan(text).components:
        if c.close_line > c.open_line:
            out.append(Fold(c.open_line, c.close_line, "region"))
    return out


def is_session_document(text: str) -> bool:
    """True when ``text`` has agent-doc frontmatter or components."""
    keys = field_lines(text)
    if any(k.startswith("agent_doc_") or k in ("session", "agent") for k in keys):
        return True
    return "<!-- agent:" in text and bool(scan(text).components)
