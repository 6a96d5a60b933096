"""``textDocument/completion``: frontmatter keys/values, component names and
marker attributes (``patch=``, ``max_lines=``, the patch modes)."""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import completions
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/completion``."""

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[":", " ", "=", "#"]),
    )
    def completion(
        ls: AgentDocLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList:
        _doc, index = ls.document(params.text_document.uri)
        items = completions(index.text, index.offset(params.position))
        return types.CompletionList(
            is_incomplete=False,
            items=[convert.completion_item(index, item) for item in items],
        )
