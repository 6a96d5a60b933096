"""Document structure for the editor: outline symbols, folding, session test.

Components become symbols named exactly after the component (nested ones as
children, ``detail`` = resolved patch mode), the frontmatter becomes a symbol
with its keys as children, and headings inside a component become that
component's children. Markers and headings inside code never count.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.components import Component
from agent_doc.document.frontmatter import field_lines
from agent_doc.document.frontmatter import split_frontmatter
from agent_doc.editor._heading_patch import headings_in as _headings_in
from agent_doc.editor._heading_patch import patched_headings
from agent_doc.editor._heading_patch import rescan_headings as _rescan
from agent_doc.editor._heading_patch import shift_symbol as shifted
from agent_doc.editor.cache import fences
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Fold
from agent_doc.editor.model import Symbol
from agent_doc.errors import AgentDocError

MAX_SYMBOL_DEPTH = 48
"""Components nested deeper are listed flat under their ancestor at this depth
(a deeper symbol tree overflows the recursion of the JSON serializer); the
``deep-nesting`` diagnostic says so."""


def _marker_end(text: str, start: int, end: int) -> int:
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


def _build(
    text: str, comps: list[Component], code: CodeRanges, configs: _Configs, base: int
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
        return _component_symbol(text, comps[0], configs, base, tuple(heads))
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
    depth = _cap_depth(parent_of, len(comps))
    built: dict[int, Symbol] = {}
    nested: dict[int, list[Symbol]] = {i: [] for i in range(len(comps))}
    for i in sorted(range(len(comps)), key=lambda i: -depth[i]):
        kids = sorted([*children[i], *nested[i]], key=lambda s: s.start)
        built[i] = _component_symbol(text, comps[i], configs, base, tuple(kids))
        if i in parent_of:
            nested[parent_of[i]].append(built[i])
    return built[0]


def _component_symbol(
    text: str, c: Component, configs: _Configs, base: int, kids: tuple[Symbol, ...]
) -> Symbol:
    sel_start, sel_end = _name_span(text, c)
    end = _marker_end(text, c.close_start, c.close_end)
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


def _span_end(text: str, top: Component) -> int:
    """Where the text a top-level component's symbols are built from ends: the
    end of the line of its closing marker (a heading line may run past it)."""
    line_end = text.find("\n", top.close_start)
    return max(top.close_end, len(text) if line_end < 0 else line_end)


_Configs = Mapping[str, ComponentConfig]
_Slot = tuple[str, int]
"""A memo entry's key: the component's name and its part's length."""
_CompKey = tuple[str, tuple[tuple[str, str], ...], int, int, int, int]
"""A component's name, attributes and marker offsets relative to a base."""


@dataclass(slots=True)
class _Entry:
    """A built part and everything it was built from, relative to its base."""

    configs: _Configs
    comps: list[_CompKey]
    code: list[tuple[int, int]]
    span: str
    part: OutlinePart
    used: int
    """The last outline pass that handed it out."""


class _PartMemo:
    """The parts of recently outlined components, reused while their text,
    their components, the code ranges in them and the configs are unchanged.

    Holds at most :attr:`LIMIT` characters of component text besides the
    parts of the current outline pass (least recently used dropped; the
    current document's parts are all kept, or a document whose components
    hold more than the limit would rebuild every one at each keystroke, and
    so would a conversation larger than the limit). A part of one top-level component
    without nested ones whose text changed inside its body is patched from
    the last one of its name (:mod:`agent_doc.editor._heading_patch`).
    """

    LIMIT = 4_000_000

    def __init__(self) -> None:
        self._entries: dict[_Slot, _Entry] = {}
        self._chars = 0
        self._latest: dict[str, _Slot] = {}
        """Component name → slot of the last entry of one component of it."""
        self._pass = 0
        """The current outline pass (see :meth:`new_pass`)."""
        self._pass_chars = 0
        """Characters of the entries handed out in the current pass."""
        self._lock = threading.Lock()

    def new_pass(self) -> None:
        """Start an outline pass: the parts it hands out are not evicted
        before the next pass starts."""
        with self._lock:
            self._pass += 1
            self._pass_chars = 0

    def get(
        self,
        text: str,
        comps: list[Component],
        code: CodeRanges,
        configs: _Configs,
        *,
        reuse: bool = True,
    ) -> OutlinePart:
        """The part of the top-level component ``comps[0]`` (nested ones follow);
        built afresh, and not remembered, when ``reuse`` is false."""
        base = comps[0].open_start
        length = _span_end(text, comps[0]) - base
        if not reuse:
            return OutlinePart(base, length, _build(text, comps, code, configs, base))
        rel_comps: list[_CompKey] = [
            (c.name, c.attrs, c.open_start - base, c.open_end - base,
             c.close_start - base, c.close_end - base)
            for c in comps
        ]  # fmt: skip
        rel_code = code.within(base, base + length)
        slot = (comps[0].name, length)
        with self._lock:
            entry = self._entries.get(slot)
        if (
            entry is not None
            and entry.comps == rel_comps
            and entry.code == rel_code
            and (entry.configs is configs or entry.configs == configs)
            and text.startswith(entry.span, base)
        ):
            self._touch(slot, entry)
            return OutlinePart(base, length, entry.part.symbol)
        symbol, replaced = None, None
        if len(comps) == 1:
            found = self._patched(text, comps[0], code, configs, rel_comps, rel_code)
            if found is not None:
                symbol, replaced = found
        if symbol is None:
            symbol = _build(text, comps, code, configs, base)
        part = OutlinePart(base, length, symbol)
        span = text[base : base + length]
        with self._lock:
            self._drop(slot)
            if replaced:
                self._drop(replaced)  # the patched one
            self._entries[slot] = _Entry(
                configs, rel_comps, rel_code, span, part, self._pass
            )
            self._chars += len(span)
            self._pass_chars += len(span)
            if len(rel_comps) == 1:
                self._latest[slot[0]] = slot
            self._evict()
        return part

    def _touch(self, slot: _Slot, entry: _Entry) -> None:
        """Mark ``entry`` used by the current pass (moved to the newest end)."""
        with self._lock:
            if self._entries.get(slot) is not entry:
                return  # dropped or replaced meanwhile
            self._entries[slot] = self._entries.pop(slot)
            if entry.used != self._pass:
                entry.used = self._pass
                self._pass_chars += len(entry.span)

    def _drop(self, slot: _Slot) -> None:
        """Forget the entry at ``slot`` (if any); the lock is held."""
        entry = self._entries.pop(slot, None)
        if entry is None:
            return
        self._chars -= len(entry.span)
        if entry.used == self._pass:
            self._pass_chars -= len(entry.span)
        if self._latest.get(slot[0]) == slot:
            del self._latest[slot[0]]

    def _evict(self) -> None:
        """Drop the least recently used entries once those outside the
        current pass hold more than :attr:`LIMIT` characters, down to three
        quarters of it (so a run of puts costs one pass over the entries, not
        one each); the lock is held."""
        if self._chars - self._pass_chars <= self.LIMIT:
            return
        keep = self.LIMIT * 3 // 4 + self._pass_chars
        for slot, entry in list(self._entries.items()):
            if self._chars <= keep or entry.used == self._pass:
                break  # the current pass's entries are the newest
            self._drop(slot)

    def _patched(
        self,
        text: str,
        top: Component,
        code: CodeRanges,
        configs: _Configs,
        rel_comps: list[_CompKey],
        rel_code: list[tuple[int, int]],
    ) -> tuple[Symbol, tuple[str, int]] | None:
        """The symbol of ``top`` (no nested components) from the last one of
        its name, when an edit inside its body allows, and that one's slot
        (``None``: build afresh)."""
        with self._lock:  # a lookup by name: a scan of the entries for
            # each of 100,000 components would be quadratic
            slot = self._latest.get(top.name)
            entry = None if slot is None else self._entries.get(slot)
        if slot is None or entry is None or len(entry.comps) != 1:
            return None
        if not (entry.configs is configs or entry.configs == configs):
            return None
        base = top.open_start
        heads = patched_headings(
            text,
            base,
            _span_end(text, top) - base,
            (entry.span, entry.comps[0], entry.code, entry.part.symbol.children),
            (rel_comps[0], rel_code),
            lambda lo, hi: _rescan(text, top, code, lo, hi),
        )
        if heads is None:
            return None
        return _component_symbol(text, top, configs, base, heads), slot


_PARTS = _PartMemo()


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
