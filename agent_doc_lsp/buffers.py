"""Read access to the open buffers: their live text, version and last edit."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from agent_doc.document.frontmatter_text import MAX_FRONTMATTER_CHARS
from agent_doc.document.textlike import TextLike
from agent_doc_lsp.fast_document import FastTextDocument


@dataclass(frozen=True, slots=True)
class Buffer:
    """The live text of one open document, as the editor has it."""

    uri: str
    """Document URI."""
    path: Path | None
    """Absolute file path (``None`` for non-``file:`` URIs)."""
    view: TextLike
    """Current buffer text as the server holds it: the chunks' frozen view
    (read in place, safe in a worker thread) or a ``str``."""
    version: int | None
    """Version of the text (from ``didOpen``/``didChange``)."""
    last_edit: float | None
    """``time.time()`` of the last ``didChange``; ``None`` if never edited."""

    @property
    def text(self) -> str:
        """Current buffer text as one ``str`` (joins the chunks on the first
        read of a version: readers of a window read :attr:`view`)."""
        return str(self.view)

    def head(self, size: int = MAX_FRONTMATTER_CHARS + 16) -> str:
        """The first ``size`` characters (the frontmatter's reach by default)."""
        return self.view[:size]


class Buffers:
    """Read access to every open buffer (pygls' workspace holds the text)."""

    def __init__(self, server: LanguageServer, last_edit: dict[str, float]) -> None:
        self._server = server
        self._last_edit = last_edit

    def _documents(self) -> dict[str, TextDocument]:
        try:
            documents: dict[str, TextDocument] = self._server.workspace.text_documents
            return documents
        except RuntimeError:  # not initialized yet
            return {}

    def __iter__(self) -> Iterator[str]:
        """The URIs as the editor sent them (pygls' keys are unquoted copies)."""
        return iter([doc.uri for doc in self._documents().values()])

    def __len__(self) -> int:
        return len(self._documents())

    def __contains__(self, uri: object) -> bool:
        return isinstance(uri, str) and unquote(uri) in self._documents()

    def get(self, uri: str) -> Buffer | None:
        """Return the open buffer of ``uri``, or ``None`` if it is not open."""
        doc = self._documents().get(unquote(uri))
        return None if doc is None else self._buffer(doc)

    def _buffer(self, doc: TextDocument, text: str | None = None) -> Buffer:
        path = to_fs_path(doc.uri)
        if text is not None:
            view: TextLike = text
        elif isinstance(doc, FastTextDocument):
            view = doc.view()
        else:
            view = doc.source
        return Buffer(
            uri=doc.uri,
            path=Path(path) if path else None,
            view=view,
            version=doc.version,
            last_edit=self._last_edit.get(doc.uri),
        )

    def head(self, uri: str) -> Buffer | None:
        """The open buffer of ``uri`` with only the beginning of its text:
        enough for the frontmatter (whose parse gives the same answer on it),
        without joining a large document's text."""
        doc = self._documents().get(unquote(uri))
        if doc is None:
            return None
        size = MAX_FRONTMATTER_CHARS + 16  # a longer block is an error either way
        if isinstance(doc, FastTextDocument):
            return self._buffer(doc, doc.prefix(size))
        return self._buffer(doc, doc.source[:size])

    def version(self, uri: str) -> int | None:
        """The version of the open buffer ``uri`` (``None`` if it is not open),
        without reading its text."""
        doc = self._documents().get(unquote(uri))
        return None if doc is None else doc.version

    def by_path(self, path: str | Path) -> Buffer | None:
        """Return the open buffer of the file ``path``, or ``None``."""
        wanted = Path(path).resolve()
        for doc in list(self._documents().values()):
            fs = to_fs_path(doc.uri)
            if fs and Path(fs).resolve() == wanted:
                return self._buffer(doc)  # keys are unquoted URIs: never re-unquote
        return None
