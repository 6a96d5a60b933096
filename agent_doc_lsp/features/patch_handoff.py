"""``agent-doc patch`` handed off: the whole command runs in the server.

When the CLI finds that this server has the document open it sends ``patch``
with ``finish: true`` (:mod:`agent_doc.write.handoff`). The server then runs
the CLI's own core call, ``patch_component`` (name check, frontmatter check,
``pre_patch``/``post_patch`` hooks, snapshot), against its live buffer through
:class:`~agent_doc_lsp.features.local_link.LocalLink`, in a worker thread.
Hooks run as the CLI would have run them: the request is the person's own
``agent-doc patch``. An error is answered with its exit code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pygls.uris import to_fs_path

from agent_doc.errors import AgentDocError
from agent_doc_lsp.features import writes
from agent_doc_lsp.features.local_link import LocalLink
from agent_doc_lsp.server import AgentDocLanguageServer


async def patch_and_finish(
    ls: AgentDocLanguageServer, uri: str, message: writes.Message
) -> writes.Message:
    """Run ``patch_component`` for a ``patch`` request with ``finish: true``."""
    from agent_doc.write.patch import patch_component

    path = Path(to_fs_path(uri) or uri)
    link = LocalLink(ls, asyncio.get_running_loop())
    name = writes.text_field(message, "component") or ""
    content = writes.text_field(message, "content") or ""
    mode = writes.text_field(message, "mode", optional=True)
    try:
        outcome = await asyncio.to_thread(
            lambda: patch_component(path, name, content, link=link, mode=mode)
        )
    except AgentDocError as exc:
        return {"ok": False, "finished": True, "error": str(exc),
                "exit_code": exc.exit_code}  # fmt: skip
    return {"finished": True, "target": outcome.target, "changed": outcome.changed}


def register(_server: AgentDocLanguageServer) -> None:
    """Answer hand-off ``patch`` requests with the whole command."""
    writes.FINISHERS["patch"] = patch_and_finish
