"""``documentSymbol`` results encoded as JSON once per unchanged component.

A keystroke changes one component of a large document. The core hands out the
same relative symbol tree (:class:`agent_doc.editor.outline.OutlinePart`) for
every component whose text is unchanged; :class:`SymbolEncoder` keeps the JSON
of each tree of the previous answer and reuses it while the tree starts at the
same line and column, so an answer after a keystroke encodes one component
instead of building, validating and serializing ~1,200 ``DocumentSymbol``
objects through cattrs.

The JSON is what lsprotocol's converter produces for
:func:`agent_doc_lsp.convert.document_symbol` (``None`` fields omitted), written
without spaces; :class:`agent_doc_lsp.raw_json.RawJson` carries it to the wire.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from bisect import bisect_right
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from itertools import compress
from itertools import count
from json.encoder import encode_basestring_ascii
from operator import attrgetter
from operator import is_not

from lsprotocol import types

from agent_doc.document.lineage import tell_when_let_go
from agent_doc.document.neutral_edit import shifted_line
from agent_doc.document.neutral_edit import unshifted_line
from agent_doc.document.textlike import TextLike
from agent_doc.editor import OutlinePart
from agent_doc.editor.model import Symbol
from agent_doc_lsp.convert import SYMBOL_KIND
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.raw_json import RawJson

_KIND_VALUE = {name: kind.value for name, kind in SYMBOL_KIND.items()}
_OTHER_KIND = types.SymbolKind.Object.value


def symbol_json(index: LineIndex, symbol: Symbol, base: int = 0) -> str:
    """The JSON text lsprotocol's converter makes of
    ``document_symbol(index, shifted(symbol, base))`` (``base`` is added to
    every offset of ``symbol``), written directly: no intermediate objects."""
    point = index.point

    def position(offset: int) -> str:
        line, character = point(base + offset)
        return f'{{"line":{line},"character":{character}}}'

    return _symbol_text(symbol, position)


def _symbol_text(symbol: Symbol, position: Callable[[int], str]) -> str:
    """The JSON of ``symbol`` and its children (a module function, not a
    recursive closure: one refers to itself, a cycle that would keep the
    line index and its text alive until a full collection)."""
    start, end = position(symbol.start), position(symbol.end)
    full = f'{{"start":{start},"end":{end}}}'
    if symbol.sel_start == symbol.start and symbol.sel_end == symbol.end:
        selection = full
    else:
        start, end = position(symbol.sel_start), position(symbol.sel_end)
        selection = f'{{"start":{start},"end":{end}}}'
    name = encode_basestring_ascii(symbol.name)
    kind = _KIND_VALUE.get(symbol.kind, _OTHER_KIND)
    text = f'{{"name":{name},"kind":{kind},"range":{full},"selectionRange":{selection}'
    if symbol.detail:
        text += ',"detail":' + encode_basestring_ascii(symbol.detail)
    if symbol.children:
        parts = [_symbol_text(child, position) for child in symbol.children]
        text += ',"children":[' + ",".join(parts) + "]"
    return text + "}"


@dataclass(slots=True)
class _Encoded:
    """The JSON of one outline part's symbol, and what its positions came from."""

    symbol: Symbol
    encoding: str
    position: tuple[int, int]
    """Line and column of the part's base offset."""
    json: str
    children: list[str]
    """The JSON of each child of :attr:`symbol`."""


class _Kept:
    """The last answer, the structure key, configs and outline it was built
    under, and the edited lines known to hold none of its positions."""

    __slots__ = ("__weakref__", "answer", "bases", "checked", "configs",
                 "encoded", "encoding", "enters", "index", "key", "parts",
                 "shifted")  # fmt: skip

    def __init__(
        self,
        key: object,
        configs: object,
        index: LineIndex,
        parts: Sequence[OutlinePart],
        answer: RawJson,
        encoded: Sequence[_Encoded],
        enters: int,
    ) -> None:
        self.key, self.configs, self.index = key, configs, index
        self.encoding = index.encoding
        self.parts, self.answer = parts, answer
        self.encoded = encoded
        """The JSON of each part of :attr:`answer`."""
        self.enters = enters
        """The neutral Enters noted under :attr:`key` when the text was read."""
        self.shifted: tuple[int, RawJson] | None = None
        """The answer after that many more Enters, made last."""
        self.bases = [part.base for part in parts]
        self.checked: set[int] = set()
        tell_when_let_go(self)

    def after(self, enters: Sequence[int]) -> RawJson:
        """The answer once the neutral Enters ``enters`` (typed since the
        text was read, none on a line holding a position) moved its lines:
        the JSON of the parts and children wholly before the first line they
        moved is reused, the line numbers in the rest rewritten (the
        positions are absolute; their characters did not change)."""
        if not enters:
            return self.answer
        if self.shifted is not None and self.shifted[0] == len(enters):
            return self.shifted[1]
        index = self.index
        low = min(unshifted_line(at, enters[:i]) for i, at in enumerate(enters))
        starts = index.starts
        edge = starts[low + 1] if low + 1 < len(starts) else len(index.source) + 1

        def line(found: re.Match[str]) -> str:
            return '{"line":' + str(shifted_line(int(found[1]), enters))

        def moved(json: str) -> str:
            return _LINE.sub(line, json)

        out = ["["]
        for part, done in zip(self.parts, self.encoded, strict=True):
            if part.base + part.length < edge:
                out.append(done.json)
            else:
                out += _moved_part(part, done, edge, moved)
            out.append(",")
        out[-1] = "]" if len(out) > 1 else "[]"
        answer = RawJson("".join(out))  # one copy of the megabytes kept
        self.shifted = (len(enters), answer)
        return answer

    def let_go(self, old: str, view: TextLike) -> None:
        """A line index of ``old`` reads ``view`` (the same text:
        :func:`agent_doc.document.lineage.let_go`)."""
        index = self.index
        if index.source is old:
            self.index = LineIndex(view, index.encoding, index.starts)

    def has_position_on(self, line: int) -> bool:
        """Whether a position of the answer lies on ``line`` (of the text the
        answer was built from: a neutral edit moves no line)."""
        starts = self.index.starts
        if line >= len(starts):
            return False
        lo = starts[line]
        hi = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.index.source)
        for part in self.parts[: bisect_right(self.bases, hi)]:
            if part.base + part.length >= lo and _touches(
                part.symbol, lo - part.base, hi - part.base
            ):
                return True
        return False


_CHILDREN = ',"children":['
_LINE = re.compile(r'\{"line":(\d+)')
"""A position's line in the JSON (``{"`` never occurs inside a string)."""


def _moved_part(
    part: OutlinePart, done: _Encoded, edge: int, moved: Callable[[str], str]
) -> list[str]:
    """The pieces of the JSON of ``part`` (encoded as ``done``) with
    ``moved`` rewriting its line numbers, except in the children that end
    before ``edge`` (a text offset: the positions before it did not move):
    their JSON is one stretch of the part's, sliced as it is."""
    kids, old = part.symbol.children, done.json
    if part.base >= edge or not kids or len(done.children) != len(kids):
        return [moved(old)]
    first = bisect_left(kids, edge - part.base, key=attrgetter("end"))
    opened = old.index(_CHILDREN) + len(_CHILDREN)  # names and details are escaped
    count = len(kids) - first  # the children that moved, then "]}"
    tail = sum(map(len, done.children[first:])) + count + 1 if count else 2
    kept = old[opened : len(old) - tail]
    return [moved(old[:opened]), kept, moved(old[len(old) - tail :])]


def _touches(symbol: Symbol, lo: int, hi: int) -> bool:
    """Whether an offset of ``symbol`` or of a child lies in ``[lo, hi]``
    (siblings are disjoint and in order: only those crossing it are read)."""
    if any(lo <= at <= hi for at in (symbol.start, symbol.end, symbol.sel_start,
                                     symbol.sel_end)):  # fmt: skip
        return True
    kids = symbol.children
    first = bisect_left(kids, lo, key=attrgetter("end"))
    last = bisect_right(kids, hi, key=attrgetter("start"))
    return any(_touches(kid, lo, hi) for kid in kids[first:last])


class SymbolEncoder:
    """Encodes the ``documentSymbol`` answers of one document, reusing the JSON
    of the outline parts handed out again since the previous answer, and of
    the leading children a changed part still shares with the previous part at
    its base (the headings before the lines a keystroke edited in a long
    component: found in one C-speed pass of identity tests, not a lookup per
    heading)."""

    __slots__ = ("_by_base", "_kept", "_last", "_previous")

    def __init__(self) -> None:
        self._kept: _Kept | None = None
        """The last answer and what it was built under (see :meth:`kept`)."""
        self._previous: dict[int, _Encoded] = {}
        """id of a part's symbol → its encoding, in the previous answer."""
        self._by_base: dict[int, _Encoded] = {}
        """A part's base offset → its encoding, in the previous answer."""
        self._last: list[_Encoded] = []
        """The encoding of each part of the previous answer, in order."""

    def kept(
        self,
        key: object | None,
        configs: object,
        encoding: str,
        edited: Collection[int] | None = (),
        enters: Sequence[int] = (),
    ) -> RawJson | None:
        """The last answer, when it was kept under the structure key ``key``
        (the same object: the document changed only inside the lines
        ``edited``, numbered as now, and by the neutral Enters ``enters``
        noted under it) with equal ``configs`` and the same ``encoding``, and
        no position of it lies on an edited line; its lines shifted past the
        Enters typed since it was made."""
        kept = self._kept
        if key is None or kept is None or kept.key is not key or edited is None:
            return None
        if kept.encoding != encoding or kept.configs != configs:
            return None
        since = list(enters[kept.enters :])
        for now in edited:
            line = unshifted_line(now, since)
            if line not in kept.checked:
                if kept.has_position_on(line):
                    self._kept = None
                    return None
                kept.checked.add(line)
        return kept.after(since)

    def keep(
        self,
        key: object | None,
        configs: object,
        index: LineIndex,
        parts: Sequence[OutlinePart],
        answer: RawJson,
        enters: int = 0,
    ) -> None:
        """Remember ``answer``, built (by :meth:`encode`, just before) from
        ``parts`` and ``index`` of the text read under ``key`` after
        ``enters`` neutral Enters noted under it."""
        if key is None or len(self._last) != len(parts):
            self._kept = None
            return
        self._kept = _Kept(key, configs, index, parts, answer, self._last, enters)

    def _part_json(
        self, index: LineIndex, part: OutlinePart, before: _Encoded | None
    ) -> tuple[str, list[str]]:
        """The JSON of ``part``'s symbol and of each of its children, reusing
        the JSON of the leading children ``before`` (the previous answer's
        part at the same base) shares with it, object for object."""
        symbol, base = part.symbol, part.base
        if not symbol.children:
            return symbol_json(index, symbol, base), []
        kids, children = symbol.children, []
        if (
            before is not None
            and before.position == index.point(base)
            and before.encoding == index.encoding
        ):
            old = before.symbol.children
            same = min(len(old), len(kids))
            same = next(compress(count(), map(is_not, kids, old)), same)
            children = before.children[:same]
        children += [symbol_json(index, child, base) for child in kids[len(children) :]]
        head = symbol_json(index, replace(symbol, children=()), base)
        return head[:-1] + ',"children":[' + ",".join(children) + "]}", children

    def encode(self, index: LineIndex, parts: Sequence[OutlinePart]) -> RawJson:
        """The JSON array of the symbols of ``parts`` (positions from ``index``).

        A part's JSON is reused when it carries the same symbol object as before
        (so the same text, see :class:`OutlinePart`) starting at the same line
        and column.
        """
        previous, encoding = self._previous, index.encoding
        current: dict[int, _Encoded] = {}
        by_base: dict[int, _Encoded] = {}
        out, last = [], []
        for part in parts:
            position = index.point(part.base)
            known = previous.get(id(part.symbol))
            if (
                known is None
                or known.symbol is not part.symbol
                or known.position != position
                or known.encoding != encoding
            ):
                before = self._by_base.get(part.base)
                json_text, children = self._part_json(index, part, before)
                known = _Encoded(part.symbol, encoding, position, json_text, children)
            current[id(part.symbol)] = known
            by_base[part.base] = known
            out.append(known.json)
            last.append(known)
        self._previous = current
        self._by_base = by_base
        self._last = last
        return RawJson("[" + ",".join(out) + "]")
