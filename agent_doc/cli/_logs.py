"""What reaches a person's terminal through :mod:`logging` in the CLI.

Libraries log too: the ACP SDK calls ``logging.exception("Send loop failed")``
on the root logger when an agent's pipe closes under it (which also makes
:mod:`logging` give itself a stderr handler), asyncio logs a task's exception
nobody retrieved. A failure is reported once, as one ``agent-doc: …`` line
(:mod:`agent_doc.cli._errors`); such lines and their tracebacks would come
before it. :func:`quiet_library_logs` gives the root logger one handler that
writes agent-doc's own warnings as logging's last resort would (the message
alone) and drops every other record, unless ``AGENT_DOC_DEBUG=1``.
"""

from __future__ import annotations

import logging
import os
import sys

OWN_LOGGERS = ("agent_doc",)
"""Loggers whose warnings are the person's business (``agent_doc.*``)."""


class OwnWarningsOnly(logging.Handler):
    """Writes ``agent_doc.*`` warnings as their message alone; drops the rest."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        """Write one of our warnings (no traceback); ignore a library's record."""
        if not record.name.startswith(OWN_LOGGERS):
            return
        try:
            sys.stderr.write(f"{record.getMessage()}\n")
        except Exception:  # logging must never raise
            self.handleError(record)


def quiet_library_logs() -> None:
    """Keep library log lines and tracebacks off the terminal (see the module)."""
    if os.environ.get("AGENT_DOC_DEBUG"):
        return
    root = logging.getLogger()
    if not any(isinstance(h, OwnWarningsOnly) for h in root.handlers):
        root.addHandler(OwnWarningsOnly())
