"""Text synchronization: ``didOpen``, ``didChange``, ``didSave``, ``didClose``.

pygls keeps every open buffer (incremental sync, positions in the negotiated
encoding) and runs these handlers after it has updated its copy. They only
record the edit time and fan out to :attr:`AgentDocLanguageServer.hooks`, whose
listeners are isolated so one failure never drops the others or the server.
"""

from __future__ import annotations

from lsprotocol import types

from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.server import stamp_edit


def register(server: AgentDocLanguageServer) -> None:
    """Register the text synchronization handlers."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(
        ls: AgentDocLanguageServer, params: types.DidOpenTextDocumentParams
    ) -> None:
        await ls.emit(ls.hooks.did_open, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(
        ls: AgentDocLanguageServer, params: types.DidChangeTextDocumentParams
    ) -> None:
        stamp_edit(ls, params.text_document.uri)
        await ls.emit(ls.hooks.did_change, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(
        ls: AgentDocLanguageServer, params: types.DidSaveTextDocumentParams
    ) -> None:
        await ls.emit(ls.hooks.did_save, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(
        ls: AgentDocLanguageServer, params: types.DidCloseTextDocumentParams
    ) -> None:
        ls.forget(params.text_document.uri)
        await ls.emit(ls.hooks.did_close, params.text_document.uri)
