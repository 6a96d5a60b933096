"""``textDocument/documentSymbol``: components, frontmatter and headings.

Each component is a symbol named exactly after the component (nested components
as children, ``detail`` = resolved patch mode); headings inside a component are
its children; the frontmatter is a symbol with its keys as children. The result
is sent as JSON text, re-encoding only the top-level symbols that changed since
the document's previous answer (see :mod:`agent_doc_lsp.symbol_json`).
While every change since that answer was neutral (typing inside one prose
line, or a neutral Enter: :mod:`agent_doc.document.neutral_edit`), the answer
is returned as it is, or with the lines after an Enter shifted (the parts and
children after it encoded again: the positions are absolute), without
reading the text (no join of a long document's chunks).

The text is read on the event loop (when the request arrives, or when the
document's previous request is answered: one at a time per document, as they
share its encoder); the line index and the outline are built in a worker
thread, so a 20 MB document's outline never holds up the keystrokes that
arrive meanwhile.
"""

from __future__ import annotations

import asyncio
import weakref

from lsprotocol import types

from agent_doc.document.component_config import ComponentConfig
from agent_doc.editor import outline_parts
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.raw_json import RawJson
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.structure_key import StructureKey
from agent_doc_lsp.symbol_json import SymbolEncoder

_LOCKS: weakref.WeakKeyDictionary[AgentDocLanguageServer, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def _outline(
    index: LineIndex,
    configs: dict[str, ComponentConfig],
    encoder: SymbolEncoder,
    key: StructureKey | None,
    enters: int,
) -> RawJson:
    """The encoded outline of ``index.text``, kept under ``key`` with the
    number of ``enters`` noted under it when the text was read (runs in a
    worker thread; one request per document at a time)."""
    parts = outline_parts(index.text, configs)
    answer = encoder.encode(index, parts)
    encoder.keep(key, configs, index, parts, answer, enters)
    return answer


async def symbols(ls: AgentDocLanguageServer, uri: str) -> RawJson:
    """The ``documentSymbol`` answer of ``uri``, built off the event loop."""
    lock = _LOCKS.setdefault(ls, {}).setdefault(uri, asyncio.Lock())
    with ls.reading(uri):  # at rest after it: the long text is let go
        async with lock:
            return await _symbols(ls, uri)


async def _symbols(ls: AgentDocLanguageServer, uri: str) -> RawJson:
    """As :func:`symbols`, holding the document's lock."""
    key, encoder = ls.structure_key(uri), ls.symbol_encoder(uri)
    configs, _error = ls.configs_for(uri)
    edited = None if key is None else key.lines
    enters = [] if key is None else key.enters
    kept = encoder.kept(key, configs, ls.encoding, edited, enters)
    if kept is not None:  # only prose lines edited since: no text read
        return kept
    doc, text = ls.document_text(uri)
    read_after = len(enters)  # the Enters the text holds (more may come)
    index = ls.cached_index(uri, doc.version, text)
    if index is None:
        index = await asyncio.to_thread(ls.line_index_maker(uri, text))
        if uri in ls.buffers:
            ls.keep_index(uri, doc.version, index)
    return await asyncio.to_thread(_outline, index, configs, encoder, key, read_after)


def forget(ls: AgentDocLanguageServer, uri: str) -> None:
    """Drop the request lock of a closed document."""
    _LOCKS.get(ls, {}).pop(uri, None)


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/documentSymbol``."""
    server.hooks.did_close.append(forget)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: AgentDocLanguageServer, params: types.DocumentSymbolParams
    ) -> RawJson:
        return await symbols(ls, params.text_document.uri)
