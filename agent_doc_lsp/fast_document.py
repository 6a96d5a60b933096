"""A ``TextDocument`` whose incremental changes cost O(edit), not O(document).

pygls re-splits the whole text and rebuilds it line by line for every
incremental change (about 2–4 ms per keystroke on a 1 MB document). This
subclass keeps the offsets of the line starts, splices the string once and
shifts only the line starts after the edit. Lines are ``\\n``-separated (a
``\\r`` before it is an ordinary last character), as in ``convert.LineIndex``.
Lone surrogates sent by the editor are stored as U+FFFD (same length in every
position encoding), so the server's copy is always encodable.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace import Workspace

from agent_doc.document.surrogates import scrub_surrogates
from agent_doc_lsp.convert import codepoints


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line of ``text``."""
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    return starts


class FastTextDocument(TextDocument):
    """pygls' document with a line-start index maintained across changes.

    Typing within one line only moves the starts of the lines after it; that
    shift is kept pending (one ``(from, delta)`` pair) and folded into the list
    only when a different line is edited or lines are added or removed.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._starts: list[int] | None = None
        self._pending = (0, 0)  # (first line index, delta) not yet applied

    def _line_starts(self) -> list[int]:
        """The exact line starts (folding in the pending shift)."""
        if self._starts is None:
            self._starts = line_starts(self.source)
            self._pending = (0, 0)
        first, delta = self._pending
        if delta:
            starts = self._starts
            starts[first:] = map(delta.__add__, starts[first:])
        self._pending = (0, 0)
        return self._starts

    def current_line_starts(self) -> list[int]:
        """A copy of the line starts of :attr:`source` (as ``line_starts`` gives)."""
        return list(self._line_starts())

    def _offset(self, pos: types.Position) -> int:
        """Code-point offset of ``pos`` (needs exact starts up to its line + 1)."""
        source, starts = self.source, self._starts
        assert starts is not None
        if pos.line >= len(starts):
            return len(source)
        start = starts[pos.line]
        if pos.line + 1 < len(starts):
            first, delta = self._pending
            end = starts[pos.line + 1] + (delta if pos.line + 1 >= first else 0) - 1
        else:
            end = len(source)
        line = source[start:end]
        if line.endswith("\r"):
            line = line[:-1]
        encoding = str(self.position_codec.encoding or types.PositionEncodingKind.Utf16)
        return start + codepoints(line, pos.character, encoding)

    def _apply_incremental_change(
        self, change: types.TextDocumentContentChangePartial
    ) -> None:
        # Private in pygls 2.1, as are ``_apply_full_change`` and ``_source``
        # (pygls#131: documents are extended by subclassing).
        line = change.range.start.line
        first, delta = self._pending
        fast = (
            self._starts is not None
            and line == change.range.end.line
            and line < len(self._starts)
            and "\n" not in change.text
            and (not delta or first == line + 1)
        )
        if not fast:
            self._line_starts()
        source = self.source
        start = self._offset(change.range.start)
        end = max(start, self._offset(change.range.end))
        text = scrub_surrogates(change.text)
        self._source = source[:start] + text + source[end:]
        change_delta = len(text) - (end - start)
        if fast:
            self._pending = (line + 1, delta + change_delta)
            return
        starts = self._line_starts()
        after = bisect.bisect_right(starts, start)  # lines starting after `start`
        last = bisect.bisect_right(starts, end)
        inserted = [start + i + 1 for i, ch in enumerate(text) if ch == "\n"]
        tail = starts[last:]
        starts[after:] = inserted
        starts.extend(map(change_delta.__add__, tail) if change_delta else tail)

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        super()._apply_full_change(change)
        if self._source is not None:
            self._source = scrub_surrogates(self._source)
        self._starts = None
        self._pending = (0, 0)


ChangeListener = Callable[[types.VersionedTextDocumentIdentifier, str], None]
"""``listener(document, text)``: one content change was applied; ``text`` is
the document's text after it."""


class FastWorkspace(Workspace):
    """A workspace of :class:`FastTextDocument` objects that reports each change.

    pygls applies the changes of one ``didChange`` one by one; a feature's
    ``didChange`` handler only sees the text after the last. Listeners in
    :attr:`change_listeners` see the text after every single change (an editor
    may coalesce our edit and the person's next keystroke into one
    notification).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.change_listeners: list[ChangeListener] = []
        """Called after each content change, in order."""

    def update_text_document(
        self,
        text_doc: types.VersionedTextDocumentIdentifier,
        change: types.TextDocumentContentChangeEvent,
    ) -> None:
        """Apply one content change, then tell :attr:`change_listeners`."""
        super().update_text_document(text_doc, change)
        if self.change_listeners:
            text = self.get_text_document(text_doc.uri).source
            for listener in list(self.change_listeners):
                listener(text_doc, text)

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        # Private in pygls 2.1 (its one document factory; pygls#131).
        return FastTextDocument(
            doc_uri,
            source=None if source is None else scrub_surrogates(source),
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )
