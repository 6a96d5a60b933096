"""Results computed for the last few texts, and where a new text may reuse them.

The write path asks about the same large document several times in a row and
then about a copy of it with an answer spliced in near the end. Keyed by the
text in a dict (``functools.lru_cache``), every new text is hashed first: about
a millisecond for a megabyte of non-ASCII text, before anything is found. A
:class:`TextMemo` finds a text by identity, then by equality (texts of another
length are skipped at once), and offers the latest text of a similar size,
so a scan of a new one can start where the two differ (:func:`restart_point`).
Where the language server noted the new text as an edit of the old one
(:mod:`agent_doc.document.lineage`), that note says where they differ, without
a compare.
"""

from __future__ import annotations

import threading

from agent_doc.document.lineage import common_ends
from agent_doc.document.lineage import on_let_go
from agent_doc.document.lineage import tell_when_let_go
from agent_doc.document.lineage import trim_versions
from agent_doc.document.linediff import common_prefix

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any
    from typing import Generic
    from typing import TypeVar

    from agent_doc.document.textlike import TextLike

    T = TypeVar("T")

_PREFIX_CHUNK = 1 << 12
"""Characters compared at once when looking for where two texts differ."""


class _TextMemo:
    """The values of the last ``size`` texts, most recently used first, and
    of a long edited document only its two newest versions (see
    :func:`~agent_doc.document.lineage.trim_versions`; typed as
    :class:`TextMemo` ``[T]``)."""

    __slots__ = ("__weakref__", "_holds_text", "_items", "_lock", "_size", "_versions")

    def __init__(self, size: int, holds_text: bool = False) -> None:
        self._size = size
        self._holds_text = holds_text
        """Whether a value refers to its text (dropped, not re-keyed, when
        the text is let go)."""
        self._items: list[tuple[TextLike, Any]] = []
        self._versions: set[int] = set()
        """Ids of the long texts held that are a document's versions."""
        self._lock = threading.Lock()  # the language server checks in a thread
        tell_when_let_go(self)

    def get(self, text: TextLike) -> Any:
        """The value remembered for ``text`` (the same or an equal string)."""
        with self._lock:
            items = self._items
            for i, (known, value) in enumerate(items):
                if known is text:
                    items.insert(0, items.pop(i))
                    return value
            for i, (known, value) in enumerate(items):  # no hashing: compare once
                if len(known) == len(text) and known == text:
                    items.insert(0, items.pop(i))
                    return value
            return None

    def put(self, text: str, value: Any) -> None:
        """Remember ``value`` for ``text``; the least recent past ``size`` go
        (and the older versions of a long document, see
        :func:`~agent_doc.document.lineage.trim_versions`)."""
        with self._lock:
            self._items.insert(0, (text, value))
            trim_versions(self._items, self._size, self._versions)

    def latest_like(self, text: str) -> tuple[TextLike, Any] | None:
        """The text ``text`` was noted as an edit of (the newest such), else
        the most recently used text of about ``text``'s size, and its value:
        the one most likely to begin like ``text`` (a small text scanned
        meanwhile, such as the answer alone, is passed over)."""
        with self._lock:
            items = list(self._items)
        for known, value in items:
            if known is not text and common_ends(known, text) is not None:
                return known, value
        with self._lock:
            for known, value in self._items:
                if len(text) <= 2 * len(known) and len(known) <= 2 * len(text):
                    return known, value
            return None

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._versions.clear()

    def let_go(self, old: str, view: TextLike) -> None:
        """Key ``old``'s value on ``view`` (the same text), or drop it when
        the value refers to ``old`` (:func:`agent_doc.document.lineage.let_go`)."""
        with self._lock:
            if not any(known is old for known, _value in self._items):
                return
            if self._holds_text:
                self._items[:] = [item for item in self._items if item[0] is not old]
            else:
                self._items[:] = [
                    (view if known is old else known, value)
                    for known, value in self._items
                ]
            if id(old) in self._versions:
                self._versions.discard(id(old))
                self._versions.add(id(view))


def _let_go(old: str, _view: TextLike) -> None:
    """Forget the last pair compared when it holds ``old``."""
    if any(old is pair[0] or old is pair[1] for pair in _LAST_PAIR):
        _LAST_PAIR.clear()


if TYPE_CHECKING:  # the values' type for the checker; a plain class at run time

    class TextMemo(_TextMemo, Generic[T]):
        """:class:`_TextMemo` holding values of type ``T``."""

        def get(self, text: TextLike) -> T | None:
            """The value remembered for ``text`` (the same or an equal string)."""

        def put(self, text: str, value: T) -> None:
            """Remember ``value`` for ``text``; the least recent past ``size``
            go (and the older versions of a long document)."""

        def latest_like(self, text: str) -> tuple[TextLike, T] | None:
            """The most recently used text of about ``text``'s size, and its value."""

else:
    TextMemo = _TextMemo


def restart_point(old: TextLike, new: str, blocks: list[tuple[int, int]]) -> int:
    """Where a scan of ``new`` may start, reusing the scan of ``old`` before it.

    A line start that both texts reach with the same text before it, right
    after an empty line (no paragraph, so no code span, runs across it) and
    outside every block of ``old`` (``blocks``: sorted ``[start, end)`` fenced
    and comment blocks; inside one, or before one left open to the end of
    ``old``, the block's own start). 0 when there is
    none, or when the texts differ in their first half (a full scan is then as
    cheap).
    """
    differ = _differ_at(old, new)
    if 2 * differ < len(new):
        return 0
    restart = new.rfind("\n\n", 0, differ) + 2  # both alike before ``differ``
    if restart < 2:
        return 0
    for start, end in reversed(blocks):
        if start < restart and (end > restart or end >= len(old)):
            return start  # inside it, or it runs to the end of ``old``: open
        if end <= restart:
            break
    return restart


def _differ_at(old: TextLike, new: str) -> int:
    """Where ``old`` and ``new`` first differ; the last pair's answer is kept
    (the code blocks, then the markers of one new text ask about the same pair)."""
    for known_old, known_new, differ in _LAST_PAIR:
        if known_old is old and known_new is new:
            return differ
    agreed = common_ends(old, new)
    differ = _common_start(old, new) if agreed is None else agreed.head
    _LAST_PAIR[:] = [(old, new, differ)]
    return differ


def newlines_before(old: TextLike, new: str, offset: int) -> int | None:
    """Number of ``\\n`` in ``new[:offset]`` when ``new`` was noted as an edit
    of ``old`` equal up to at least ``offset`` (counted from that note's end of
    the equal part back to ``offset``); ``None`` otherwise (count them)."""
    agreed = common_ends(old, new)
    if agreed is None or offset > agreed.head:
        return None
    return agreed.head_lines - new.count("\n", offset, agreed.head)


def _common_start(old: TextLike, new: str) -> int:
    """Number of equal leading characters of ``old`` and ``new``: pieces of
    ``old`` tested with ``new.startswith`` (no copy of ``new``), then the
    differing piece halved."""
    size, at = min(len(old), len(new)), 0
    while at < size:
        end = min(at + _PIECE, size)
        if not new.startswith(old[at:end], at):
            return at + common_prefix(old[at:end], new[at:end], chunk=_PREFIX_CHUNK)
        at = end
    return size


_PIECE = 1 << 16
"""Characters of ``old`` tested at once by :func:`_common_start`."""


_LAST_PAIR: list[tuple[TextLike, str, int]] = []
"""The texts and answer of the last :func:`_differ_at` call."""

on_let_go(_let_go)
