"""``agentDoc.undo`` / ``agentDoc.redo``: the person's own undo in a shared document.

An editor's native undo replays its own history, which in a shared document
holds the other peers' and the agent's text: it would remove them. With these
commands the undo happens in the room's document instead
(:meth:`agent_doc.share.mirror.BufferMirror.undo`, a Yjs undo manager that
tracks the person's changes only), and the buffer is brought to the result
through the same minimal, version-checked edit as a remote change — at once,
without waiting for a typing pause. The result is ``{shared: true, done,
position}`` once the buffer holds it: ``position`` (in the client's encoding)
is where the change was, for the cursor, as after an editor's own undo
(``done`` false: nothing to undo or redo, no position).

For a document that is not shared (no room, or never synced with it) the
result is ``{shared: false}``: the editor falls back to its own undo. Editors
learn which documents to map from ``ownUndo`` in ``agentDoc/shareStatus``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_doc_lsp import commands
from agent_doc_lsp.commands import DocumentArgs
from agent_doc_lsp.features import share_sync
from agent_doc_lsp.server import AgentDocLanguageServer


async def own_undo(
    ls: AgentDocLanguageServer, uri: str, *, redo: bool = False
) -> dict[str, Any]:
    """Undo (or redo) the person's last step in ``uri``'s room and wait until
    the buffer holds the result (at most ``writeTimeoutMs``)."""
    joined = share_sync.state_of(ls).joined.get(uri)
    buffer = ls.buffers.get(uri)
    if joined is None or buffer is None or not joined.mirror.peer.synced.is_set():
        return {"shared": False}
    where = joined.mirror.undo(buffer.text, redo=redo)
    if where is not None:
        # a bringing under way plans from the room's newest text: it takes
        # the undo along (after the pause it may be waiting for)
        joined.hurry = joined.bringing is None
        share_sync.bring(ls, uri)
    task = joined.bringing
    if task is not None:  # not cancelled with the request: the edit still lands
        await asyncio.wait({task}, timeout=ls.options.write_timeout_ms / 1000)
    if where is None:
        return {"shared": True, "done": False}
    if uri not in ls.buffers:  # closed meanwhile
        return {"shared": True, "done": True}
    _doc, index = ls.document(uri)  # the buffer's text now (it holds the undo)
    line, character = index.point(where)
    return {
        "shared": True,
        "done": True,
        "position": {"line": line, "character": character},
    }


def register(server: AgentDocLanguageServer) -> None:
    """Register ``agentDoc.undo`` and ``agentDoc.redo``."""

    @server.command(commands.UNDO)
    async def undo(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await own_undo(ls, args.uri)

    @server.command(commands.REDO)
    async def redo(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await own_undo(ls, args.uri, redo=True)
