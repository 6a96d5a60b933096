"""``textDocument/foldingRange``: the frontmatter block and every component."""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import folds
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/foldingRange``."""

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding_range(
        ls: AgentDocLanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange]:
        _doc, index = ls.document(params.text_document.uri)
        return [convert.folding_range(f) for f in folds(index.text)]
