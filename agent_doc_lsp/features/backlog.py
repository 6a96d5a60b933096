"""``agentDoc.backlog``: one backlog operation by id, on the live buffer.

The state toggles (code actions), diagnostics and id completion come from
:mod:`agent_doc.editor.backlog` through the usual features; this command is
for an editor's own key bindings and for agents talking LSP. The change goes
through the write seam with this editor's buffer (one minimal, verified edit).
"""

from __future__ import annotations

from typing import Any

from agent_doc.document.backlog_ops import BacklogOp
from agent_doc.document.surrogates import scrub_surrogates
from agent_doc.write.backlog import change_items
from agent_doc_lsp import commands
from agent_doc_lsp.commands import BacklogArgs
from agent_doc_lsp.features.commands import path_of
from agent_doc_lsp.features.commands import run_core
from agent_doc_lsp.server import AgentDocLanguageServer


def register(server: AgentDocLanguageServer) -> None:
    """Register ``agentDoc.backlog``."""

    @server.command(commands.BACKLOG)
    async def backlog(ls: AgentDocLanguageServer, args: BacklogArgs) -> Any:
        text = None if args.text is None else scrub_surrogates(args.text)
        op = BacklogOp(args.op, args.id, text, tuple(args.ids), args.all)
        path = path_of(args.uri)
        return await run_core(
            ls,
            lambda link: change_items(
                path, op, component=args.component, link=link, by_agent=args.by_agent
            ),
        )
