"""The one place where agent-doc extends pygls' protocol.

pygls builds its ``Workspace`` inside ``lsp_initialize`` and writes every
response through ``json.dumps``; it offers no factory for either. Its authors'
answer to "custom Document and Workspace classes" (pygls#131) is a protocol
subclass passed as ``protocol_cls``, which is what :class:`AgentDocProtocol`
is. Every pygls override of the server lives here or in the two classes it
builds (:mod:`agent_doc_lsp.fast_document`); ``tests/lsp/test_pygls_drift.py``
fails when a signature they override changes in pygls.

Overrides:

* ``lsp_initialize`` — after pygls made its workspace, replace it with a
  :class:`~agent_doc_lsp.fast_document.FastWorkspace` (same root, folders,
  sync kind and position encoding) before any feature's ``initialize`` runs.
* ``_send_data`` — a :class:`~agent_doc_lsp.raw_json.RawJson` result (JSON
  text already encoded, see :mod:`agent_doc_lsp.symbol_json`) is written as it
  is. Private in pygls 2.1; no upstream hook exists for pre-encoded results
  (none found in pygls' tracker; the protocol-subclass route is pygls#131's).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol import lsp_method

from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.raw_json import RawJson

logger = logging.getLogger(__name__)
_writes: set[asyncio.Future[Any]] = set()  # pending asynchronous writes


class AgentDocProtocol(LanguageServerProtocol):
    """pygls' protocol with a fast workspace and pre-encoded results."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' ``initialize``, with a :class:`FastWorkspace` as the workspace."""
        steps = super().lsp_initialize(params)
        try:
            step = next(steps)  # pygls has built its workspace by now
        except StopIteration as done:
            self.use_fast_workspace()
            result: types.InitializeResult = done.value
            return result
        self.use_fast_workspace()
        while True:
            value = yield step
            try:
                step = steps.send(value)
            except StopIteration as done:
                result = done.value
                return result

    def use_fast_workspace(self) -> FastWorkspace:
        """The workspace as a :class:`FastWorkspace`: made from pygls' own
        (``initialize`` calls this), or an empty one before ``initialize`` (a
        server driven without a client, as in the tests)."""
        plain = self._workspace  # pygls#131: the workspace is the protocol's own
        if isinstance(plain, FastWorkspace):
            return plain
        if plain is None:
            fast = FastWorkspace(None, types.TextDocumentSyncKind.Incremental)
        else:
            fast = FastWorkspace(
                plain.root_uri,
                types.TextDocumentSyncKind.Incremental,
                list(plain.folders.values()),
                plain.position_encoding,
            )
        self._workspace = fast
        return fast

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        if not isinstance(result, RawJson) or self.writer is None:
            super()._send_data(data)
            return
        # Mirrors the header and write steps of ``JsonRPCProtocol._send_data``
        # for a result that is already JSON (no pygls hook for it).
        body = (
            '{"id":' + json.dumps(data.id) + ',"jsonrpc":"2.0","result":'
            + result.text + "}"
        ).encode("utf-8")  # fmt: skip
        if self._include_headers:
            header = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            body = header.encode("ascii") + body
        try:
            written = self.writer.write(body)
            if inspect.isawaitable(written):  # a WebSocket writer
                task = asyncio.ensure_future(written)
                _writes.add(task)
                task.add_done_callback(_writes.discard)
        except BrokenPipeError:
            logger.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            logger.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)
