"""``textDocument/documentSymbol``: components, frontmatter and headings.

Each component is a symbol named exactly after the component (nested components
as children, ``detail`` = resolved patch mode); headings inside a component are
its children; the frontmatter is a symbol with its keys as children. The result
is sent as JSON text, re-encoding only the top-level symbols that changed since
the document's previous answer (see :mod:`agent_doc_lsp.symbol_json`).
"""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import outline_parts
from agent_doc_lsp.raw_json import RawJson
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/documentSymbol``."""

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(
        ls: AgentDocLanguageServer, params: types.DocumentSymbolParams
    ) -> RawJson:
        uri = params.text_document.uri
        doc, index = ls.document(uri)
        configs, _error = ls.configs_for(doc.uri)
        parts = outline_parts(index.text, configs)
        return ls.symbol_encoder(uri).encode(index, parts)
