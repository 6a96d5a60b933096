"""``textDocument/codeAction``: quick fixes for agent-doc diagnostics.

Migrate deprecated frontmatter fields, close an unclosed component, remove stale
boundary markers. Edits are pinned to the document version when the client
supports ``documentChanges``.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc.editor import quick_fixes
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/codeAction``."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        ls: AgentDocLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        doc, index = ls.document(params.text_document.uri)
        start, end = index.offset(params.range.start), index.offset(params.range.end)
        versioned = get_capability(
            ls.client_capabilities, "workspace.workspace_edit.document_changes", False
        )
        return [
            convert.code_action(
                index, doc.uri, doc.version, fix, versioned, params.context.diagnostics
            )
            for fix in quick_fixes(index.text, start, end)
        ]
