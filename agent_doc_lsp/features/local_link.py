"""A :class:`~agent_doc.write.server_link.ServerLink` that talks to *this* server.

Commands such as ``agentDoc.write`` or ``agentDoc.preflight`` run the very core
functions the CLI runs (``writing.write_response``, ``preflight.run_preflight``
…), in a worker thread. Those functions reach the editor through a
``ServerLink``; this one answers in-process: each call is handed to the
server's event loop and waits (bounded) for the result, so the worker thread
never touches pygls state directly.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any
from typing import TypeVar

from agent_doc.errors import ServerTimeout
from agent_doc.write.server_link import Registration
from agent_doc.write.server_link import ServerHandle
from agent_doc.write.server_link import ServerLink
from agent_doc.write.server_link import ServerWriteReply
from agent_doc_lsp.features import writes
from agent_doc_lsp.server import AgentDocLanguageServer

T = TypeVar("T")


class LocalLink(ServerLink):
    """Route the core's server calls to ``ls`` (call from a worker thread)."""

    def __init__(
        self, ls: AgentDocLanguageServer, loop: asyncio.AbstractEventLoop
    ) -> None:
        super().__init__(write_timeout=ls.options.write_timeout_ms / 1000 + 5)
        self.ls = ls
        """The server whose buffers are used."""
        self.loop = loop
        """The server's event loop."""
        self._registration = Registration(os.getpid(), "", (), Path(os.devnull))

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(self.write_timeout)
        except TimeoutError as exc:
            future.cancel()
            raise ServerTimeout("the editor did not apply the edit in time") from exc

    async def _owner(self, path: Path) -> ServerHandle | None:
        buffer = self.ls.buffers.by_path(path)
        if buffer is None:
            return None
        return ServerHandle(self._registration, str(path), buffer.text, buffer.version)

    def find_owner(self, path: Path) -> ServerHandle | None:
        """Return this server's buffer of ``path`` (``None`` if not open)."""
        return self._call(self._owner(Path(path).resolve()))

    def _uri(self, handle: ServerHandle) -> str:
        buffer = self.ls.buffers.by_path(handle.file)
        if buffer is None:
            raise ServerTimeout(f"{handle.file} was closed in the editor")
        return buffer.uri

    def write(
        self,
        handle: ServerHandle,
        response: str,
        baseline: str | None,
        origin: str | None = None,  # noqa: ARG002 - logged by the core
        answer_id: str | None = None,
    ) -> ServerWriteReply:
        """Merge ``response`` into the live buffer (verified, with retries)."""

        async def run() -> ServerWriteReply:
            uri = self._uri(handle)
            warnings = writes.patch_warnings(self.ls, uri, response)
            plan = await writes.write_buffer(
                self.ls, uri, response, baseline, answer_id=answer_id
            )
            return ServerWriteReply(
                content_ours=plan.content_ours,
                text=plan.merged,
                warnings=tuple(warnings),
            )

        return self._call(run())

    def patch(
        self,
        handle: ServerHandle,
        component: str,
        content: str,
        *,
        mode: str | None = None,
    ) -> str:
        """Patch one component of the live buffer; return the new text."""

        async def run() -> str:
            uri = self._uri(handle)
            plan = await writes.patch_buffer(self.ls, uri, component, content, mode)
            return plan.merged

        return self._call(run())

    def merge(
        self,
        handle: ServerHandle,
        baseline: str,
        target: str,
        *,
        label: str | None = None,
    ) -> str:
        """Bring the live buffer from ``baseline`` to ``target``, merged with
        the typing since (one verified edit named ``label``); return the new
        text."""

        async def run() -> str:
            uri = self._uri(handle)
            plan = await writes.merge_buffer(
                self.ls, uri, baseline, target, label=label or "agent-doc compact"
            )
            return plan.merged

        return self._call(run())

    def reposition(self, path: Path) -> bool:
        """Reposition the boundary in the live buffer; ``False`` if not open."""

        async def run() -> bool:
            buffer = self.ls.buffers.by_path(path)
            if buffer is None:
                return False
            await writes.reposition_buffer(self.ls, buffer.uri)
            return True

        return self._call(run())

    def vcs_refresh(self, path: Path | None = None) -> int:  # noqa: ARG002
        """Send ``agentDoc/vcsRefresh`` to the client."""

        async def run() -> int:
            self.ls.protocol.notify(writes.VCS_REFRESH, {})
            return 1

        return self._call(run())

    def typing(self, path: Path) -> int | None:
        """Unix ms of the last edit of ``path`` in this editor."""

        async def run() -> int | None:
            buffer = self.ls.buffers.by_path(path)
            if buffer is None or buffer.last_edit is None:
                return None
            return int(buffer.last_edit * 1000)

        return self._call(run())
