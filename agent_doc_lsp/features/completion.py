"""``textDocument/completion``: frontmatter keys/values, component names and
marker attributes (``patch=``, ``max_lines=``, the patch modes).

A space is a trigger character (``patch=`` values follow one), so most
requests come from prose: those are answered from the cursor's line and the
document's start (:func:`agent_doc.editor.assist.no_completions`) without
joining a long document's text."""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import completions
from agent_doc.editor.assist import COMPLETION_HEAD
from agent_doc.editor.assist import no_completions
from agent_doc_lsp import convert
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.server import AgentDocLanguageServer


def certainly_empty(
    ls: AgentDocLanguageServer, uri: str, position: types.Position
) -> bool:
    """Whether the open buffer ``uri`` has no completion at ``position``, told
    without reading its whole text (``False``: ask the whole text)."""
    doc = ls.workspace.get_text_document(uri)
    if uri not in ls.buffers or not isinstance(doc, FastTextDocument):
        return False
    found = doc.line_before(position)
    if found is None:
        return False
    offset, line_prefix = found
    return no_completions(doc.prefix(COMPLETION_HEAD), line_prefix, offset)


def completion_list(
    ls: AgentDocLanguageServer, params: types.CompletionParams
) -> types.CompletionList:
    """The completion items at ``params.position``."""
    uri = params.text_document.uri
    if certainly_empty(ls, uri, params.position):
        return types.CompletionList(is_incomplete=False, items=[])
    _doc, index = ls.document(uri)
    items = completions(index.text, index.offset(params.position))
    return types.CompletionList(
        is_incomplete=False,
        items=[convert.completion_item(index, item) for item in items],
    )


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/completion``."""

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[":", " ", "=", "#"]),
    )
    def completion(
        ls: AgentDocLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList:
        return completion_list(ls, params)
