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


def _shape(top: Symbol) -> tuple[list[Any], int, int]:
    """The tree of ``top`` with offsets relative to its start, and its extent.

    Returns ``(shape, low, high)``: every field of every symbol in one flat
    list, and the lowest and highest offset any of them uses.
    """
    base = top.start
    flat: list[Any] = []
    pending = [top]
    while pending:
        symbol = pending.pop()
        flat += (
            symbol.name,
            symbol.detail,
            symbol.kind,
            symbol.start - base,
            symbol.end - base,
            symbol.sel_start - base,
            symbol.sel_end - base,
            len(symbol.children),
        )
        pending += symbol.children
    low = min(min(flat[3::8]), min(flat[5::8]))
    high = max(max(flat[4::8]), max(flat[6::8]))
    return flat, base + low, base + high


class SymbolEncoder:
    """Encodes the ``documentSymbol`` answers of one document, reusing the JSON
    of top-level symbols unchanged since the previous answer."""

    __slots__ = ("_previous",)

    def __init__(self) -> None:
        self._previous: dict[tuple[str, int], tuple[tuple[Any, ...], str]] = {}

    def encode(self, index: LineIndex, symbols: Sequence[Symbol]) -> RawJson:
        """The JSON array of ``symbols`` (positions from ``index``)."""
        text, previous = index.text, self._previous
        current: dict[tuple[str, int], tuple[tuple[Any, ...], str]] = {}
        parts = []
        for symbol in symbols:
            shape, low, high = _shape(symbol)
            # Everything the JSON depends on; compared (never hashed) with the
            # entry found under a cheap name + length slot.
            key = (index.encoding, index.point(low), symbol.start - low,
                   text[low:high], shape)  # fmt: skip
            slot = (symbol.name, high - low)
            entry = previous.get(slot)
            if entry is None or entry[0] != key:
                entry = (key, _encode(symbol_json(index, symbol)))
            current[slot] = entry
            parts.append(entry[1])
        self._previous = current
        return RawJson("[" + ",".join(parts) + "]")
