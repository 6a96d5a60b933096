"""``textDocument/documentSymbol``: components, frontmatter and headings.

Each component is a symbol named exactly after the component (nested components
as children, ``detail`` = resolved patch mode); headings inside a component are
its children; the frontmatter is a symbol with its keys as children. The result
is sent as plain JSON-ready dicts (see :func:`convert.document_symbols_json`).
"""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import outline
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/documentSymbol``."""

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(
        ls: AgentDocLanguageServer, params: types.DocumentSymbolParams
    ) -> convert.JsonResult:
        doc, index = ls.document(params.text_document.uri)
        configs, _error = ls.configs_for(doc.uri)
        return convert.document_symbols_json(index, outline(index.text, configs))
