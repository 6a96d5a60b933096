"""Reuse one document analysis across the editor features of one version.

The language server asks for symbols, folding, diagnostics and code lenses of
the same text (pygls hands out the same ``str`` object until the next change),
so the component scan and the fence ranges are kept for the last few texts,
matched by identity (never by a full comparison); of a long edited document
only its two newest versions (:func:`agent_doc.document.lineage.trim_versions`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.components import ComponentScan
from agent_doc.document.components import scan_components
from agent_doc.document.lineage import on_let_go
from agent_doc.document.lineage import trim_versions
from agent_doc.document.textlike import TextLike

T = TypeVar("T")
_SIZE = 4
_lock = threading.Lock()
_entries: dict[str, list[tuple[TextLike, object]]] = {}
_versions: dict[str, set[int]] = {}


def _memo(kind: str, text: str, compute: Callable[[str], T]) -> T:
    with _lock:
        for cached_text, value in _entries.get(kind, ()):
            if cached_text is text:
                return value  # type: ignore[return-value]
    value = compute(text)
    with _lock:
        entries = _entries.setdefault(kind, [])
        entries.insert(0, (text, value))
        trim_versions(entries, _SIZE, _versions.setdefault(kind, set()))
    return value


def scan(text: str) -> ComponentScan:
    """``scan_components`` of :mod:`agent_doc.document.components`, memoized."""
    return _memo("scan", text, scan_components)


def fences(text: str) -> CodeRanges:
    """Fenced code block ranges of ``text``, memoized per text object."""
    return _memo("fences", text, lambda t: CodeRanges(block_ranges(t)[0]))


def _let_go(old: str, _view: TextLike) -> None:
    """Drop what was kept for ``old`` (looked up by identity: of no use
    once the text is let go for its view)."""
    with _lock:
        for kind, entries in _entries.items():
            entries[:] = [entry for entry in entries if entry[0] is not old]
            _versions.get(kind, set()).discard(id(old))


on_let_go(_let_go)
