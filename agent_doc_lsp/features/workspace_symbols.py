"""``workspace/symbol``: components of the session documents in the workspace.

The scan (markdown files with agent-doc frontmatter or components under the
workspace folders, skipping ``.git``, ``.agent-doc`` and ``node_modules``) is
cached per file mtime in :class:`agent_doc.editor.project.SessionIndex` and runs
in a worker thread.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``workspace/symbol``."""

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: AgentDocLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        if not ls.options.workspace_symbols:
            return []
        found = await asyncio.to_thread(ls.sessions.search, ls.roots(), params.query)
        return [convert.workspace_symbol(s) for s in found]
