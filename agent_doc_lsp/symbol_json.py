"""``documentSymbol`` results encoded as JSON once per unchanged symbol tree.

A keystroke changes one component of a large document; the other top-level
symbols (components, the frontmatter) keep their JSON exactly when their text,
their symbol tree relative to their start and the line/column where they start
are unchanged. :class:`SymbolEncoder` keeps the JSON text of each top-level
symbol of the previous answer under that key and encodes only the rest, so an
answer after a keystroke costs a few dictionary look-ups instead of building,
validating and serializing ~1,200 ``DocumentSymbol`` objects through cattrs.

The JSON is what lsprotocol's converter produces for
:func:`agent_doc_lsp.convert.document_symbol` (``None`` fields omitted), written
without spaces; :class:`agent_doc_lsp.raw_json.RawJson` carries it to the wire.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any

from lsprotocol import types

from agent_doc.editor.model import Symbol
from agent_doc_lsp.convert import SYMBOL_KIND
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.raw_json import RawJson

JsonObject = dict[str, Any]
"""A JSON-ready LSP object: what lsprotocol's converter would produce."""

_KIND_VALUE = {name: kind.value for name, kind in SYMBOL_KIND.items()}
_OTHER_KIND = types.SymbolKind.Object.value
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def symbol_json(index: LineIndex, symbol: Symbol) -> JsonObject:
    """``document_symbol(index, symbol)`` as lsprotocol would unstructure it."""
    point = index.point

    def convert(symbol: Symbol) -> JsonObject:
        line, character = point(symbol.start)
        end_line, end_character = point(symbol.end)
        full = {
            "start": {"line": line, "character": character},
            "end": {"line": end_line, "character": end_character},
        }
        if symbol.sel_start == symbol.start and symbol.sel_end == symbol.end:
            selection = full
        else:
            line, character = point(symbol.sel_start)
            end_line, end_character = point(symbol.sel_end)
            selection = {
                "start": {"line": line, "character": character},
                "end": {"line": end_line, "character": end_character},
            }
        data: JsonObject = {
            "name": symbol.name,
            "kind": _KIND_VALUE.get(symbol.kind, _OTHER_KIND),
            "range": full,
            "selectionRange": selection,
        }
        if symbol.detail:
            data["detail"] = symbol.detail
        if symbol.children:
            data["children"] = [convert(child) for child in symbol.children]
        return data

    return convert(symbol)


_LABELS = attrgetter("name", "detail", "kind")
_OFFSETS = attrgetter("start", "end", "sel_start", "sel_end")


@dataclass(slots=True)
class _Tree:
    """Everything the JSON of one top-level symbol depends on, and that JSON."""

    encoding: str
    low: int
    """The lowest offset used by a symbol of the tree."""
    position: tuple[int, int]
    """Line and column of :attr:`low`."""
    span: str
    """The text from :attr:`low` to the highest offset used."""
    labels: list[tuple[str, str, str]]
    """Name, detail and kind of each symbol, breadth first."""
    counts: list[int]
    """Number of children of each symbol, breadth first."""
    offsets: list[int]
    """Start, end, selection start and end of each symbol, breadth first."""
    json: str = ""

    def same_json(self, other: _Tree, text: str) -> bool:
        """True when ``other`` (whose span starts at ``other.low`` of ``text``
        and whose ``span`` is not filled in) encodes to :attr:`json`."""
        delta = other.low - self.low
        return (
            self.encoding == other.encoding
            and self.position == other.position
            and self.counts == other.counts
            and self.labels == other.labels
            and other.offsets
            == (list(map(delta.__add__, self.offsets)) if delta else self.offsets)
            and text.startswith(self.span, other.low)
        )


def _tree(index: LineIndex, top: Symbol) -> _Tree:
    """The :class:`_Tree` of ``top`` without its span and JSON."""
    symbols = [top]
    for symbol in symbols:  # breadth first: the list grows as it is walked
        symbols += symbol.children
    offsets = list(chain.from_iterable(map(_OFFSETS, symbols)))
    low = min(offsets)
    return _Tree(
        encoding=index.encoding,
        low=low,
        position=index.point(low),
        span="",
        labels=list(map(_LABELS, symbols)),
        counts=[len(symbol.children) for symbol in symbols],
        offsets=offsets,
    )


class SymbolEncoder:
    """Encodes the ``documentSymbol`` answers of one document, reusing the JSON
    of top-level symbols unchanged since the previous answer."""

    __slots__ = ("_previous",)

    def __init__(self) -> None:
        self._previous: dict[tuple[str, int], _Tree] = {}

    def encode(self, index: LineIndex, symbols: Sequence[Symbol]) -> RawJson:
        """The JSON array of ``symbols`` (positions from ``index``)."""
        text, previous = index.text, self._previous
        current: dict[tuple[str, int], _Tree] = {}
        parts = []
        for symbol in symbols:
            tree = _tree(index, symbol)
            length = max(tree.offsets) - tree.low
            slot = (symbol.name, length)  # a cheap look-up; the tree decides
            known = previous.get(slot)
            if known is not None and known.same_json(tree, text):
                tree.span, tree.json = known.span, known.json
            else:
                tree.span = text[tree.low : tree.low + length]
                tree.json = _encode(symbol_json(index, symbol))
            current[slot] = tree
            parts.append(tree.json)
        self._previous = current
        return RawJson("[" + ",".join(parts) + "]")
