"""The parts of recently outlined components, kept for reuse (:class:`PartMemo`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.components import Component
from agent_doc.document.lineage import tell_when_let_go
from agent_doc.document.textlike import TextLike
from agent_doc.editor._heading_patch import patched_headings
from agent_doc.editor._heading_patch import rescan_headings as _rescan
from agent_doc.editor._textwindow import spans_equal
from agent_doc.editor.model import Symbol
from agent_doc.editor.outline_build import Configs as _Configs
from agent_doc.editor.outline_build import OutlinePart
from agent_doc.editor.outline_build import build_part
from agent_doc.editor.outline_build import component_symbol
from agent_doc.editor.outline_build import span_end

_Slot = tuple[str, int]
"""A memo entry's key: the component's name and its part's length."""
_CompKey = tuple[str, tuple[tuple[str, str], ...], int, int, int, int]
"""A component's name, attributes and marker offsets relative to a base."""


COPY_BELOW = 1 << 18
"""A component's text shorter than this is kept as a copy; a longer one as a
reference to the whole text it lay in (no copy of a 19 MB conversation per
keystroke). Such an entry counts the whole text against :attr:`PartMemo.LIMIT`
once per entry, so only long components are kept that way: a document of
many mid-sized ones keeps its copies, as small as before, when another
document is outlined in between."""


@dataclass(slots=True)
class _Entry:
    """A built part and everything it was built from, relative to its base."""

    configs: _Configs
    comps: list[_CompKey]
    code: list[tuple[int, int]]
    kept: tuple[TextLike, int]
    """The component's text (a copy) and 0, or the whole text it lay in and
    where it starts there (one attribute: read and replaced at once)."""
    part: OutlinePart
    used: int
    """The last outline pass that handed it out."""

    @property
    def cost(self) -> int:
        """Characters this entry keeps alive (all of its kept text)."""
        return len(self.kept[0])


def _kept_text(text: str, base: int, length: int) -> tuple[TextLike, int]:
    """What an entry keeps of ``text[base:base + length]``: a copy of a short
    one, the whole text (shared with the caller) for a long one."""
    if length < COPY_BELOW:
        return text[base : base + length], 0
    return text, base


def _unchanged(entry: _Entry, text: str, base: int, length: int) -> bool:
    """Whether ``text[base:base + length]`` is the entry's component text: a
    copy is compared at once, a reference only where the edit notes do not
    say (:func:`~agent_doc.editor._textwindow.spans_equal`)."""
    kept, at = entry.kept
    if isinstance(kept, str) and len(kept) == length and length < COPY_BELOW:
        return text.startswith(kept, base)
    return spans_equal(kept, at, text, base, length)


class PartMemo:
    """The parts of recently outlined components, reused while their text,
    their components, the code ranges in them and the configs are unchanged.

    Holds at most :attr:`LIMIT` characters of text besides the parts of the
    current outline pass (a long component's entry counts the whole text it
    keeps a reference to; least recently used dropped; the
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
        tell_when_let_go(self)

    def let_go(self, old: str, view: TextLike) -> None:
        """Entries that refer to ``old`` refer to ``view`` (the same text)
        instead (:func:`agent_doc.document.lineage.let_go`)."""
        with self._lock:
            for entry in self._entries.values():
                if entry.kept[0] is old:
                    entry.kept = (view, entry.kept[1])

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
        length = span_end(text, comps[0]) - base
        if not reuse:
            return OutlinePart(
                base, length, build_part(text, comps, code, configs, base)
            )
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
            and _unchanged(entry, text, base, length)
        ):
            self._touch(slot, entry, text, base)
            return OutlinePart(base, length, entry.part.symbol)
        symbol, replaced = None, None
        if len(comps) == 1:
            found = self._patched(text, comps[0], code, configs, rel_comps, rel_code)
            if found is not None:
                symbol, replaced = found
        if symbol is None:
            symbol = build_part(text, comps, code, configs, base)
        part = OutlinePart(base, length, symbol)
        kept = _kept_text(text, base, length)
        with self._lock:
            self._drop(slot)
            if replaced:
                self._drop(replaced)  # the patched one
            self._entries[slot] = _Entry(
                configs, rel_comps, rel_code, kept, part, self._pass
            )
            self._chars += len(kept[0])
            self._pass_chars += len(kept[0])
            if len(rel_comps) == 1:
                self._latest[slot[0]] = slot
            self._evict()
        return part

    def _touch(self, slot: _Slot, entry: _Entry, text: str, base: int) -> None:
        """Mark ``entry`` used by the current pass (moved to the newest end);
        one that refers to a whole text now refers to ``text`` at ``base``
        (equal there), so no older version stays alive for it."""
        with self._lock:
            if self._entries.get(slot) is not entry:
                return  # dropped or replaced meanwhile
            self._entries[slot] = self._entries.pop(slot)
            if entry.used == self._pass:
                self._pass_chars -= entry.cost
            else:
                entry.used = self._pass
            if entry.part.length >= COPY_BELOW:
                self._chars += len(text) - entry.cost
                entry.kept = (text, base)
            self._pass_chars += entry.cost

    def _drop(self, slot: _Slot) -> None:
        """Forget the entry at ``slot`` (if any); the lock is held."""
        entry = self._entries.pop(slot, None)
        if entry is None:
            return
        self._chars -= entry.cost
        if entry.used == self._pass:
            self._pass_chars -= entry.cost
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
            span_end(text, top) - base,
            (
                (*entry.kept, entry.part.length),
                entry.comps[0],
                entry.code,
                entry.part.symbol.children,
            ),
            (rel_comps[0], rel_code),
            lambda lo, hi: _rescan(text, top, code, lo, hi),
        )
        if heads is None:
            return None
        return component_symbol(text, top, configs, base, heads), slot
