"""A ``TextDocument`` whose incremental changes cost O(edit), not O(document).

pygls re-splits the whole text and rebuilds it line by line for every
incremental change, and even one splice (``s[:a] + new + s[b:]``) copies the
whole string: about 130 ms a keystroke on a 19 MB document stored at 4 bytes a
character. This subclass keeps the open text as a
:class:`~agent_doc_lsp.chunked_text.ChunkedText` (chunks of 64 K characters
with their offsets and line counts), so a change rebuilds one chunk. The
``source`` string pygls' API promises is joined when something reads it, and
kept until the next change. Lines are ``\\n``-separated (a ``\\r`` before it is
an ordinary last character), as in ``convert.LineIndex``. Lone surrogates sent
by the editor are stored as U+FFFD (same length in every position encoding),
so the server's copy is always encodable.

Each text handed out is noted as an edit of the one handed out before
(:func:`agent_doc.document.lineage.note_edit`: the characters before the first
change and after the last are unchanged), so the scans and memos that kept
results for that one know where the two differ without comparing them. A
full-text change starts afresh (nothing noted). The joined ``str`` of
:attr:`source` and the :class:`~agent_doc.document.textlike.ChunkView` of
:meth:`view` (the chunks read in place, no join) are two lines of descent,
each noted against the one of its own kind handed out before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace import Workspace

from agent_doc.document.lineage import LONG_TEXT
from agent_doc.document.lineage import let_go
from agent_doc.document.lineage import note_edit
from agent_doc.document.surrogates import scrub_surrogates
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import TextLike
from agent_doc_lsp.chunked_text import CHUNK
from agent_doc_lsp.chunked_text import ChunkedText
from agent_doc_lsp.chunked_text import LineStartParts
from agent_doc_lsp.chunked_text import newlines
from agent_doc_lsp.convert import codepoints
from agent_doc_lsp.heap import release_free_memory
from agent_doc_lsp.structure_key import StructureKey
from agent_doc_lsp.structure_key import neutral_change
from agent_doc_lsp.structure_key import outside_frontmatter

logger = logging.getLogger(__name__)


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line of ``text``."""
    return [0, *(p + 1 for p in newlines(text))]


class FastTextDocument(TextDocument):
    """pygls' document, kept as chunks once it is edited.

    Until the first incremental change it is pygls' plain document (the text
    of ``didOpen``, or the file for a document that is not open).
    """

    chunk_size: int = CHUNK
    """Characters per chunk (tests use small ones to cross chunk boundaries)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._text: ChunkedText | None = None
        self._handed: TextLike | None = None
        """The text :attr:`source` last returned (the chunks' join), or, once
        the document moved on from a long one, its version's view."""
        self._kept: tuple[int, int] | None = None
        """Characters of :attr:`_handed` at its start and its end that every
        change since it left alone (``None``: no change since)."""
        self._handed_view: TextLike | None = None
        """The text :meth:`view` last returned."""
        self._view_kept: tuple[int, int] | None = None
        """As :attr:`_kept`, for :attr:`_handed_view`."""
        self._structure = StructureKey()
        """Stands for the document's structure; replaced by every change that
        may have changed it (see :meth:`structure_key`)."""

    @property
    def source(self) -> str:
        """The whole text (joined from the chunks once per change)."""
        if self._text is None:
            if self._source is not None:  # held (not read from the file)
                self._handed, self._kept = self._source, None
            return super().source
        text = self._text.text()
        if text is not self._handed:
            if self._handed is not None and self._kept is not None:
                head, tail = self._kept
                lines = self._text.newlines_before(head)
                note_edit(self._handed, text, head, tail, lines)
            self._handed, self._kept = text, None
        return text

    def view(self) -> TextLike:
        """The current version without a join: the chunks' frozen view, or
        the plain text before the document is chunked. Noted as an edit of
        the one handed out before, as :attr:`source` is."""
        if self._text is None:
            text = self.source
            self._handed_view, self._view_kept = text, None
            return text
        view = self._text.view()
        if view is not self._handed_view:
            before, kept = self._handed_view, self._view_kept
            if before is not None and kept is not None:
                lines = self._text.newlines_before(kept[0])
                note_edit(before, view, kept[0], kept[1], lines)
            self._handed_view, self._view_kept = view, None
            self._note_when_joined(view)
        return view

    def _note_when_joined(self, view: ChunkView) -> None:
        """Have the join of ``view`` noted as an edit of the ``str`` handed
        out before (a reader of the buffer's text may join it in a worker
        thread, before :attr:`source` is read again)."""
        before, kept = self._handed, self._kept
        if view.joined is not None or before is None or kept is None:
            return
        head, tail = kept
        lines = self._chunked().newlines_before(head)

        def note(text: str) -> None:
            note_edit(before, text, head, tail, lines)

        view.when_joined(note)

    @property
    def joined(self) -> bool:
        """Whether the current version's ``str`` is made (reading
        :attr:`source` costs no join)."""
        return self._text is None or self._text.joined

    def structure_key(self) -> StructureKey | None:
        """What an answer derived from the document's structure (outline,
        component problems) is kept under: the same object while every change
        since it was read was neutral (:mod:`agent_doc.document.neutral_edit`:
        inside one prose line, or a neutral Enter), so that answer is still
        exact once its lines are shifted past :attr:`StructureKey.enters`.
        ``None`` before the document is chunked."""
        return None if self._text is None else self._structure

    def forget_lineage(self) -> None:
        """Note nothing about the next text handed out (as after a full change)."""
        self._handed = self._kept = None
        self._handed_view = self._view_kept = None

    def chunk(self) -> None:
        """Cut the text into chunks now (it is done at the first change anyway)."""
        self._chunked()

    def _chunked(self) -> ChunkedText:
        if self._text is None:
            self._text = ChunkedText(super().source, self.chunk_size)
            self._source = None  # the chunks hold it now
        return self._text

    @property
    def length(self) -> int:
        """``len(self.source)``, without joining the chunks."""
        return len(self._text) if self._text is not None else len(self.source)

    def prefix(self, size: int) -> str:
        """``self.source[:size]``, without joining the chunks."""
        if self._text is None:
            return self.source[:size]
        return self._text.slice(0, size)

    def text_equals(self, text: str) -> bool:
        """``self.source == text``, compared chunk by chunk (no join)."""
        if self._text is None:
            return self.source == text
        return self._text.equals(text)

    def current_line_starts(self) -> list[int]:
        """The line starts of :attr:`source` (as ``line_starts`` gives)."""
        if self._text is None:
            return line_starts(self.source)
        return self._text.line_starts()

    def line_start_parts(self) -> LineStartParts | None:
        """The parts :func:`join_line_starts` makes :meth:`current_line_starts`
        of, in a worker thread if need be (``None`` before the first change or
        :meth:`chunk`: split the text then)."""
        return None if self._text is None else self._text.line_start_parts()

    def line_before(self, pos: types.Position) -> tuple[int, str] | None:
        """The offset of ``pos`` and the text of its line before it, without
        joining the chunks (``None`` before the first change or past the end)."""
        if self._text is None or pos.line >= self._text.line_count():
            return None
        offset = self._offset(pos)
        return offset, self._text.slice(self._text.line_start(pos.line), offset)

    def _offset(self, pos: types.Position) -> int:
        """Code-point offset of the client position ``pos``."""
        text = self._chunked()
        if pos.line >= text.line_count():
            return len(text)
        start = text.line_start(pos.line)
        line = text.slice(start, text.line_end(pos.line))
        if line.endswith("\r"):
            line = line[:-1]
        encoding = str(self.position_codec.encoding or types.PositionEncodingKind.Utf16)
        return start + codepoints(line, pos.character, encoding)

    def _apply_incremental_change(
        self, change: types.TextDocumentContentChangePartial
    ) -> None:
        # Private in pygls 2.1, as are ``_apply_full_change`` and ``_source``
        # (pygls#131: documents are extended by subclassing).
        start = self._offset(change.range.start)
        end = max(start, self._offset(change.range.end))
        self.let_go_text()  # before the first change of a version joined
        text = self._chunked()
        tail = len(text) - end
        new = scrub_surrogates(change.text)
        self._note_structure(text, start, end, new)
        text.replace(start, end, new)
        if self._handed is not None:
            kept = self._kept or (start, tail)
            self._kept = (min(kept[0], start), min(kept[1], tail))
        if self._handed_view is not None:
            kept = self._view_kept or (start, tail)
            self._view_kept = (min(kept[0], start), min(kept[1], tail))

    def let_go_text(self) -> bool:
        """Let go of the current version's ``str`` when it is long: everything
        that kept it holds the version's view instead
        (:func:`~agent_doc.document.lineage.let_go`: the chunks, which this
        document shares, not one ``str`` at up to 4 bytes a character). The
        next reader of :attr:`source` joins again, noted as equal to the
        view. Whether a ``str`` was let go."""
        text = self._text
        old = None if text is None else text.kept_join()
        if text is None or old is None or len(old) < LONG_TEXT:
            return False
        view = text.view()  # this version's: the one ``old`` was joined from
        view.forget_join()
        text.forget_join()
        let_go(old, view)
        self._handed, self._kept = view, None
        lines = text.newlines_before(len(text))

        def note(joined: str) -> None:  # the next join (``source`` or a worker's)
            note_edit(view, joined, len(joined), 0, lines)

        view.when_joined(note)
        del old  # its pages are free once nothing holds it
        release_free_memory()
        return True

    def _note_structure(
        self, text: ChunkedText, start: int, end: int, new: str
    ) -> None:
        """Replace the structure key unless replacing ``[start, end)`` of
        ``text`` by ``new`` is neutral (read from slices around the edit)."""
        line = text.newlines_before(start)
        line_start = text.line_start(line)
        line_end = text.line_end(line)
        if end <= line_end and line_end - line_start <= CHUNK:
            enter = neutral_change(text, line, start, end, new)
            if enter is not None and outside_frontmatter(text, start):
                self._structure.note(line, enter)
                return
        self._structure.lines = None
        self._structure = StructureKey()

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        super()._apply_full_change(change)
        self._structure.lines = None
        self._structure = StructureKey()
        self._text = None
        self.forget_lineage()
        if self._source is not None:
            self._source = scrub_surrogates(self._source)


ChangeListener = Callable[
    [types.VersionedTextDocumentIdentifier, FastTextDocument], None
]
"""``listener(ident, document)``: one content change was applied; ``document``
holds the text after it. Reading ``document.source`` joins the whole text, so
a listener reads it only when it needs it, and during the call (the next
change replaces it); ``length`` and ``text_equals`` do not join."""


class FastWorkspace(Workspace):
    """A workspace of :class:`FastTextDocument` objects that reports each change.

    pygls applies the changes of one ``didChange`` one by one; a feature's
    ``didChange`` handler only sees the text after the last. Listeners in
    :attr:`change_listeners` see the document after every single change (an editor
    may coalesce our edit and the person's next keystroke into one
    notification). A listener that raises is logged and the others still run:
    an exception escaping here would stop pygls' loop over the notification's
    changes, and the server's copy of the text would fall behind the editor's.
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
        """Apply one content change, then tell :attr:`change_listeners`.

        A version that skips one (a change the server never saw) notes
        nothing about the text after it."""
        doc = self.text_documents.get(unquote(text_doc.uri))
        if (
            isinstance(doc, FastTextDocument)
            and doc.version is not None
            and text_doc.version is not None
            and text_doc.version > doc.version + 1
        ):
            doc.forget_lineage()
        super().update_text_document(text_doc, change)
        if self.change_listeners:
            doc = self.get_text_document(text_doc.uri)
            assert isinstance(doc, FastTextDocument)  # made by this workspace
            for listener in list(self.change_listeners):
                try:
                    listener(text_doc, doc)
                except Exception:  # as server.emit: the next change must apply
                    logger.exception("change listener %r failed", listener)

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        # Private in pygls 2.1 (its one document factory; pygls#131).
        doc = FastTextDocument(
            doc_uri,
            source=None if source is None else scrub_surrogates(source),
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )
        if source is not None:  # an opened document: cut it now, not at the
            doc.chunk()  # first keystroke (tens of ms on 20 MB)
        return doc
