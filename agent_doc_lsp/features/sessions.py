"""``agentDoc.sessions``: every session document in the workspace, at a glance.

Returns ``{"sessions": [{uri, path, name, session, state, pane, agent, detail,
exitCode, lastAnswer, unsent, unsentChanges, open}, …]}`` from
:class:`agent_doc.editor.sessions.SessionScanner` (in a worker thread: it reads
files and may run tmux). Open documents use their live buffer and the status
the editor last showed; clients refresh their view on ``agentDoc/status``.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

import attrs

from agent_doc.editor.agent_status import EditorStatus
from agent_doc.editor.sessions import SessionScanner
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features.commands import run_core
from agent_doc_lsp.server import AgentDocLanguageServer

SESSIONS = "agentDoc.sessions"

_SCANNERS: weakref.WeakKeyDictionary[AgentDocLanguageServer, SessionScanner] = (
    weakref.WeakKeyDictionary()
)


@attrs.define
class SessionsArgs:
    """``agentDoc.sessions``: no fields needed (``{}``)."""

    uri: str | None = None
    """Ignored: the whole workspace is listed."""


def live_state(
    ls: AgentDocLanguageServer,
) -> tuple[dict[Path, str], dict[Path, EditorStatus], dict[Path, str]]:
    """Open buffers' texts, last shown statuses and URIs, by absolute path."""
    live: dict[Path, str] = {}
    uris: dict[Path, str] = {}
    for uri in ls.buffers:
        buffer = ls.buffers.get(uri)
        if buffer is not None and buffer.path is not None:
            live[buffer.path.absolute()] = buffer.text
            uris[buffer.path.absolute()] = buffer.uri
    shown = {
        path: status
        for path, uri in uris.items()
        if (status := agent_status.state_of(ls).shown.get(uri)) is not None
    }
    return live, shown, uris


async def sessions(ls: AgentDocLanguageServer) -> dict[str, Any]:
    """The ``agentDoc.sessions`` result."""
    scanner = _SCANNERS.setdefault(ls, SessionScanner())
    live, shown, uris = live_state(ls)
    roots = ls.roots()

    def rows(_link: Any) -> list[dict[str, Any]]:
        return [
            {"uri": uris.get(row.path, row.path.as_uri()), **row.payload()}
            for row in scanner.scan(roots, live, shown)
        ]

    return {"sessions": await run_core(ls, rows)}


def register(server: AgentDocLanguageServer) -> None:
    """Register ``agentDoc.sessions``."""

    @server.command(SESSIONS)
    async def sessions_(ls: AgentDocLanguageServer, _args: SessionsArgs) -> Any:
        return await sessions(ls)
