"""Request results that are already JSON text, written to the client as they are.

pygls sends every response through ``json.dumps`` with cattrs as the fallback
for attrs objects. A handler that already holds the JSON text of its result
(see :mod:`agent_doc_lsp.symbol_json`) returns a :class:`RawJson`;
:class:`AgentDocProtocol` splices that text into the response unparsed.
Anything else goes through pygls unchanged.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any

from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)
_writes: set[asyncio.Future[Any]] = set()  # pending asynchronous writes


class RawJson:
    """One JSON value as ASCII text (``json.dumps`` output), sent as it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
        """The encoded value."""

    def value(self) -> Any:
        """The decoded value (what the client receives)."""
        return json.loads(self.text)


class AgentDocProtocol(LanguageServerProtocol):
    """pygls' protocol, writing :class:`RawJson` results without re-encoding."""

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        if not isinstance(result, RawJson) or self.writer is None:
            super()._send_data(data)
            return
        # HACK: pygls 2.1 has no hook for pre-encoded results; this mirrors the
        # header and write steps of ``JsonRPCProtocol._send_data`` for this case.
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
