"""``textDocument/prepareRename`` and ``textDocument/rename`` of components:
renaming either marker renames both."""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams

from agent_doc.editor import rename_edits
from agent_doc.editor import rename_target
from agent_doc.errors import AgentDocError
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``prepareRename`` and ``rename``."""

    @server.feature(
        types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True)
    )
    def rename(
        ls: AgentDocLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit:
        doc, index = ls.document(params.text_document.uri)
        try:
            changes = rename_edits(
                index.text, index.offset(params.position), params.new_name
            )
        except AgentDocError as exc:
            raise JsonRpcInvalidParams(str(exc)) from exc
        versioned = get_capability(
            ls.client_capabilities, "workspace.workspace_edit.document_changes", False
        )
        edits = convert.text_edits(index, changes)
        return convert.workspace_edit(
            doc.uri, doc.version, edits, document_changes=versioned
        )

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(
        ls: AgentDocLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        _doc, index = ls.document(params.text_document.uri)
        target = rename_target(index.text, index.offset(params.position))
        if target is None:
            return None
        start, end, name = target
        return types.PrepareRenamePlaceholder(
            range=index.range(start, end), placeholder=name
        )
