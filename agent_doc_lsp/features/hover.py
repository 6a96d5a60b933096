"""``textDocument/hover``: a component's resolved patch mode and max_lines (and
where each came from), or what a frontmatter key means."""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import hover as hover_info
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/hover``."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(
        ls: AgentDocLanguageServer, params: types.HoverParams
    ) -> types.Hover | None:
        doc, index = ls.document(params.text_document.uri)
        configs, _error = ls.configs_for(doc.uri)
        info = hover_info(index.text, index.offset(params.position), configs)
        return convert.hover(index, info) if info else None
