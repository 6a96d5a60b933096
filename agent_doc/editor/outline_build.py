"""Building the outline's parts: a top-level component's symbol tree.

:func:`build_part` turns one top-level component and the components nested
in it into a :class:`~agent_doc.editor.model.Symbol` tree (headings inside a
component as its children, ``detail`` the resolved patch mode) with offsets
relative to a base, so :mod:`agent_doc.editor.part_memo` can keep and reuse
it while the component's text is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.components import Component
from agent_doc.editor._heading_patch import headings_in as _headings_in
from agent_doc.editor.model import Symbol
from agent_doc.errors import AgentDocError

Configs = Mapping[str, ComponentConfig]
"""The document's component configs, by name."""

MAX_SYMBOL_DEPTH = 48
"""Components nested deeper are listed flat under their ancestor at this depth
(a deeper symbol tree overflows the recursion of the JSON serializer); the
``deep-nesting`` diagnostic says so."""


def marker_end(text: str, start: int, end: int) -> int:
    """End of a marker span without its trailing newline."""
    return end - 1 if end > start and text[end - 1] == "\n" else end


def _name_span(text: str, comp: Component) -> tuple[int, int]:
    comp_start, name = comp.open_start, comp.name
    at = text.find("agent:" + name, comp_start, comp.open_end)
    return (at + 6, at + 6 + len(name)) if at >= 0 else (comp_start, comp_start)


def _mode(component: Component, configs: Mapping[str, ComponentConfig]) -> str:
    try:
        mode, _source = resolve_mode(component, configs)
    except AgentDocError:
        return "invalid mode"
    return mode


@dataclass(frozen=True, slots=True)
class OutlinePart:
    """One top-level outline entry with offsets relative to :attr:`base`.

    Every offset of :attr:`symbol` (children included) lies in
    ``[0, length]``. A part's ``symbol`` object is handed out again only while
    ``text[base:base + length]`` and everything else it was built from are
    unchanged, so callers may cache work derived from it by identity; the
    same holds for a child of it handed out again in a new part at the same
    base (the text from the base to the child's end is unchanged).
    """

    base: int
    length: int
    symbol: Symbol


def build_part(
    text: str, comps: list[Component], code: CodeRanges, configs: Configs, base: int
) -> Symbol:
    """The symbol tree of one top-level component (``comps[0]``) and its nested
    components, with offsets relative to ``base``."""
    heads = [
        Symbol(
            title or "#",
            "",
            "heading",
            start - base,
            end - base,
            start - base,
            end - base,
        )
        for start, end, title in _headings_in(text, comps[0], code)
    ]
    if len(comps) == 1:  # no nesting: every heading is a child of the component
        return component_symbol(text, comps[0], configs, base, tuple(heads))
    children: dict[int, list[Symbol]] = {i: [] for i in range(len(comps))}
    # innermost component containing each heading: walk a stack of open ones
    events = sorted(
        [(c.open_end, 0, i) for i, c in enumerate(comps)]
        + [(h.start + base, 1, j) for j, h in enumerate(heads)]
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
            children[stack[-1]].append(heads[idx])
    depth = cap_depth(parent_of, len(comps))
    built: dict[int, Symbol] = {}
    nested: dict[int, list[Symbol]] = {i: [] for i in range(len(comps))}
    for i in sorted(range(len(comps)), key=lambda i: -depth[i]):
        kids = sorted([*children[i], *nested[i]], key=lambda s: s.start)
        built[i] = component_symbol(text, comps[i], configs, base, tuple(kids))
        if i in parent_of:
            nested[parent_of[i]].append(built[i])
    return built[0]


def component_symbol(
    text: str, c: Component, configs: Configs, base: int, kids: tuple[Symbol, ...]
) -> Symbol:
    sel_start, sel_end = _name_span(text, c)
    end = marker_end(text, c.close_start, c.close_end)
    return Symbol(
        c.name,
        _mode(c, configs),
        "component",
        c.open_start - base,
        end - base,
        sel_start - base,
        sel_end - base,
        kids,
    )


def span_end(text: str, top: Component) -> int:
    """Where the text a top-level component's symbols are built from ends: the
    end of the line of its closing marker (a heading line may run past it)."""
    line_end = text.find("\n", top.close_start)
    return max(top.close_end, len(text) if line_end < 0 else line_end)


def cap_depth(parent_of: dict[int, int], count: int) -> list[int]:
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
