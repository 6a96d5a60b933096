"""Convert core ``str`` offsets ⇄ LSP positions and core results → LSP types.

The core works in Python string offsets (code points). LSP positions count
code units of the encoding negotiated at ``initialize`` (UTF-16 unless the client
offered UTF-8 or UTF-32). This is the only module that converts between them.

pygls' ``TextDocument.client_position_at_offset`` re-splits the whole document on
every call, so converting many offsets of a large document through it is
quadratic. :class:`LineIndex` splits once and answers each conversion with a
binary search plus the width of one line prefix.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from agent_doc.document.textlike import TextLike
from agent_doc.editor.model import Completion
from agent_doc.editor.model import Fix
from agent_doc.editor.model import Fold
from agent_doc.editor.model import HoverInfo
from agent_doc.editor.model import Problem
from agent_doc.editor.model import Symbol
from agent_doc.editor.model import TextChange
from agent_doc.editor.project import SessionSymbol
from agent_doc_lsp.chunked_text import ChunkLineStarts

UTF8 = types.PositionEncodingKind.Utf8
UTF16 = types.PositionEncodingKind.Utf16
UTF32 = types.PositionEncodingKind.Utf32


def units(text: str, encoding: str) -> int:
    """Return the length of ``text`` in code units of ``encoding``."""
    if text.isascii() or encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def codepoints(line: str, count: int, encoding: str) -> int:
    """Return how many code points of ``line`` make up ``count`` code units.

    A count that ends inside a character (half a surrogate pair) rounds up.
    """
    if line.isascii() or encoding == UTF32:
        return min(count, len(line))
    used = 0
    for index, ch in enumerate(line):
        if used >= count:
            return index
        code = ord(ch)
        if encoding == UTF8:
            used += (
                1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
            )
        else:
            used += 2 if code > 0xFFFF else 1
    return len(line)


class LineIndex:
    """Line starts of one text, for fast offset ⇄ position conversion.

    Parameters
    ----------
    text
        The document text (``\\n`` line endings; ``\\r\\n`` is tolerated): a
        ``str``, or a view of the server's chunks (with their ``starts``),
        of which only the lines converted are sliced.
    encoding
        The negotiated position encoding (``utf-8``, ``utf-16`` or ``utf-32``).
    """

    __slots__ = ("_chunked", "encoding", "source", "starts")

    def __init__(
        self,
        text: TextLike,
        encoding: str = UTF16,
        starts: Sequence[int] | None = None,
    ) -> None:
        self.source = text
        """The text the index was built for, as it was given."""
        self.encoding = str(encoding)
        """The negotiated position encoding."""
        if starts is None:
            text = str(text)
            # Line starts at C speed: running sums of (line length + 1).
            lengths = map(len, text.split("\n"))
            starts = [0, *itertools.accumulate(map((1).__add__, lengths))]
            starts.pop()
        self.starts: Sequence[int] = starts
        """Offset of the first character of each line (after each ``\\n``);
        passed in when the caller already keeps them for ``text`` (a list,
        or the chunks' own as :class:`ChunkLineStarts`)."""
        self._chunked = starts if isinstance(starts, ChunkLineStarts) else None

    @property
    def text(self) -> str:
        """The text the index was built for, as one ``str`` (a view is
        joined on the first read)."""
        return str(self.source)

    def line_of(self, offset: int) -> int:
        """Return the 0-based line holding ``offset``."""
        if self._chunked is not None:
            return self._chunked.line_of(offset)
        return bisect.bisect_right(self.starts, offset) - 1

    def line_text(self, line: int) -> str:
        """Return line ``line`` without its line ending."""
        start = self.starts[line]
        end = (
            self.starts[line + 1] - 1
            if line + 1 < len(self.starts)
            else len(self.source)
        )
        return self.source[start:end].rstrip("\r")

    def point(self, offset: int) -> tuple[int, int]:
        """Convert a code-point offset to ``(line, character)`` (clamped)."""
        if offset < 0:
            offset = 0
        elif offset > len(self.source):
            offset = len(self.source)
        line = self.line_of(offset)
        start = self.starts[line]
        if offset == start:
            return line, 0
        prefix = self.source[start:offset]
        return line, len(prefix) if prefix.isascii() else units(prefix, self.encoding)

    def position(self, offset: int) -> types.Position:
        """Convert a code-point offset to an LSP position (clamped to the text)."""
        line, column = self.point(offset)
        return types.Position(line=line, character=column)

    def range(self, start: int, end: int) -> types.Range:
        """Convert ``[start, end)`` code-point offsets to an LSP range."""
        return types.Range(start=self.position(start), end=self.position(end))

    def offset(self, position: types.Position) -> int:
        """Convert an LSP position to a code-point offset (clamped to the text)."""
        if position.line >= len(self.starts):
            return len(self.source)
        line = self.line_text(max(position.line, 0))
        column = codepoints(line, max(position.character, 0), self.encoding)
        return self.starts[max(position.line, 0)] + column

    def line_range(self, first: int, last: int) -> types.Range:
        """Return the range from the start of line ``first`` to the end of ``last``."""
        last = min(last, len(self.starts) - 1)
        end = types.Position(
            line=last, character=units(self.line_text(last), self.encoding)
        )
        return types.Range(start=types.Position(line=first, character=0), end=end)


def edit(index: LineIndex, start: int, end: int, new_text: str) -> types.TextEdit:
    """Build a ``TextEdit`` replacing ``[start, end)`` with ``new_text``."""
    return types.TextEdit(range=index.range(start, end), new_text=new_text)


def text_edit_json(text_edit: types.TextEdit) -> dict[str, Any]:
    """A ``TextEdit`` as the JSON object the protocol sends."""
    start, end = text_edit.range.start, text_edit.range.end
    return {
        "range": {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        },
        "newText": text_edit.new_text,
    }


def versioned_edit(
    uri: str, version: int | None, edits: Sequence[types.TextEdit]
) -> types.WorkspaceEdit:
    """Wrap edits of one document in a ``WorkspaceEdit`` pinned to ``version``."""
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=version
                ),
                edits=list(edits),
            )
        ]
    )


def workspace_edit(
    uri: str,
    version: int | None,
    edits: Sequence[types.TextEdit],
    *,
    document_changes: bool,
) -> types.WorkspaceEdit:
    """Build a ``WorkspaceEdit`` in the form the client supports."""
    if document_changes:
        return versioned_edit(uri, version, edits)
    return types.WorkspaceEdit(changes={uri: list(edits)})


# -- core editor results → lsprotocol ------------------------------------------

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
SYMBOL_KIND: dict[str, types.SymbolKind] = {
    "component": types.SymbolKind.Module,
    "frontmatter": types.SymbolKind.Namespace,
    "field": types.SymbolKind.Property,
    "heading": types.SymbolKind.String,
}
"""Core :attr:`Symbol.kind` → LSP symbol kind (anything else: ``Object``)."""
_COMPLETION_KIND = {
    "field": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.EnumMember,
    "component": types.CompletionItemKind.Module,
    "attribute": types.CompletionItemKind.Field,
}


def diagnostic(index: LineIndex, problem: Problem) -> types.Diagnostic:
    """Convert a core :class:`Problem` to a ``Diagnostic``."""
    return types.Diagnostic(
        range=index.range(problem.start, problem.end),
        message=problem.message,
        severity=_SEVERITY.get(problem.severity, types.DiagnosticSeverity.Error),
        code=problem.code,
        source="agent-doc",
        tags=[types.DiagnosticTag.Deprecated] if problem.deprecated else None,
    )


def document_symbol(index: LineIndex, symbol: Symbol) -> types.DocumentSymbol:
    """Convert a core :class:`Symbol` (recursively) to a ``DocumentSymbol``."""
    full = index.range(symbol.start, symbol.end)
    same = (symbol.sel_start, symbol.sel_end) == (symbol.start, symbol.end)
    return types.DocumentSymbol(
        name=symbol.name,
        detail=symbol.detail or None,
        kind=SYMBOL_KIND.get(symbol.kind, types.SymbolKind.Object),
        range=full,
        selection_range=full if same else index.range(symbol.sel_start, symbol.sel_end),
        children=[document_symbol(index, c) for c in symbol.children] or None,
    )


def folding_range(fold: Fold) -> types.FoldingRange:
    """Convert a core :class:`Fold` to a ``FoldingRange``."""
    return types.FoldingRange(
        start_line=fold.start_line,
        end_line=fold.end_line,
        kind=types.FoldingRangeKind.Region,
    )


def text_edits(index: LineIndex, changes: Sequence[TextChange]) -> list[types.TextEdit]:
    """Convert core :class:`TextChange` objects to ``TextEdit`` objects."""
    return [edit(index, c.start, c.end, c.new_text) for c in changes]


def completion_item(index: LineIndex, item: Completion) -> types.CompletionItem:
    """Convert a core :class:`Completion` to a ``CompletionItem``."""
    return types.CompletionItem(
        label=item.label,
        kind=_COMPLETION_KIND.get(item.kind, types.CompletionItemKind.Text),
        detail=item.detail or None,
        documentation=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=item.documentation
        )
        if item.documentation
        else None,
        text_edit=edit(index, item.start, item.end, item.insert),
    )


def hover(index: LineIndex, info: HoverInfo) -> types.Hover:
    """Convert a core :class:`HoverInfo` to a ``Hover``."""
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=info.markdown
        ),
        range=index.range(info.start, info.end),
    )


def workspace_symbol(symbol: SessionSymbol) -> types.WorkspaceSymbol:
    """Convert a :class:`SessionSymbol` (whole lines) to a ``WorkspaceSymbol``."""
    return types.WorkspaceSymbol(
        name=symbol.name,
        kind=SYMBOL_KIND.get(symbol.kind, types.SymbolKind.Object),
        container_name=symbol.container,
        location=types.Location(
            uri=symbol.path.as_uri(),
            range=types.Range(
                start=types.Position(line=symbol.start_line, character=0),
                end=types.Position(line=symbol.end_line + 1, character=0),
            ),
        ),
    )


def code_action(
    index: LineIndex,
    uri: str,
    version: int | None,
    fix: Fix,
    versioned: bool,
    context: Sequence[types.Diagnostic] = (),
) -> types.CodeAction:
    """Convert a core :class:`Fix` to a quick-fix ``CodeAction``."""
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        is_preferred=fix.preferred,
        diagnostics=[d for d in context if d.code == fix.code] or None,
        edit=workspace_edit(
            uri, version, text_edits(index, fix.changes), document_changes=versioned
        ),
    )
