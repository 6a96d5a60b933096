"""Forward Python log records to the client as ``window/logMessage``.

stdout carries the protocol, so ``__main__`` logs to stderr; this handler copies
records to the editor's output panel too. pygls logs every message it sends at
INFO, so its records below WARNING are dropped (they would also recurse).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

LEVELS: dict[str, int] = {
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}


def message_type(levelno: int) -> types.MessageType:
    """Map a logging level to an LSP message type."""
    if levelno >= logging.ERROR:
        return types.MessageType.Error
    if levelno >= logging.WARNING:
        return types.MessageType.Warning
    if levelno >= logging.INFO:
        return types.MessageType.Info
    return types.MessageType.Log


class WindowLogMessageHandler(logging.Handler):
    """A logging handler that sends records as ``window/logMessage``.

    Parameters
    ----------
    server
        The server to send through.
    loop
        The server's event loop; records logged from worker threads are handed
        to it so writes to the transport never interleave.
    """

    def __init__(
        self, server: LanguageServer, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        super().__init__()
        self.server = server
        """The server whose client receives the messages."""
        self.loop = loop
        """The event loop that owns the transport."""
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop pygls' own chatter below WARNING."""
        if record.name.startswith("pygls") and record.levelno < logging.WARNING:
            return False
        return super().filter(record)

    def emit(self, record: logging.LogRecord) -> None:
        """Send one record to the client (from any thread)."""
        try:
            params = types.LogMessageParams(
                type=message_type(record.levelno), message=self.format(record)
            )
            if (
                self.loop is None
                or threading.current_thread() is threading.main_thread()
            ):
                self.server.window_log_message(params)
            else:
                self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # logging must never raise
            self.handleError(record)


def install(
    server: LanguageServer, level: str, loop: asyncio.AbstractEventLoop | None
) -> WindowLogMessageHandler:
    """Attach a :class:`WindowLogMessageHandler` for the ``agent_doc*`` loggers."""
    handler = WindowLogMessageHandler(server, loop)
    handler.setLevel(LEVELS.get(level, logging.INFO))
    for name in ("agent_doc", "agent_doc_lsp", "pygls"):
        logging.getLogger(name).addHandler(handler)
    set_level(handler, level)
    return handler


def set_level(handler: WindowLogMessageHandler, level: str) -> None:
    """Change the forwarding level (``logLevel`` setting)."""
    number = LEVELS.get(level, logging.INFO)
    handler.setLevel(number)
    for name in ("agent_doc", "agent_doc_lsp"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET or logger.level > number:
            logger.setLevel(number)


def uninstall(handler: WindowLogMessageHandler) -> None:
    """Detach ``handler`` from the loggers it was attached to."""
    for name in ("agent_doc", "agent_doc_lsp", "pygls"):
        logging.getLogger(name).removeHandler(handler)
