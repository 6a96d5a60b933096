"""The one mapping from an exception to a stderr line and an exit code.

Shared by the typer boundary (:mod:`agent_doc.cli._output`) and the argparse
fast path (:mod:`agent_doc.cli.commands._fast`); it must not import typer.
"""

from __future__ import annotations

import os
import sys
import traceback

from agent_doc.errors import AgentDocError


def report_error(exc: BaseException) -> int:
    """Print one ``agent-doc: …`` line for ``exc`` and return its exit code."""
    if isinstance(exc, AgentDocError):
        sys.stderr.write(f"agent-doc: {exc}\n")
        return exc.exit_code
    signum = getattr(exc, "signum", None)  # cycle.cancel.Interrupted: SIGTERM/SIGHUP
    if isinstance(exc, KeyboardInterrupt) or isinstance(signum, int):
        signum = signum if isinstance(signum, int) else 2
        which = f" ({exc})" if signum != 2 else ""
        sys.stderr.write(f"agent-doc: interrupted{which}\n")
        return 128 + signum
    if isinstance(exc, OSError):
        sys.stderr.write(f"agent-doc: {exc.strerror or exc}: {exc.filename or ''}\n")
        return 1
    if os.environ.get("AGENT_DOC_DEBUG"):
        traceback.print_exception(exc)
    sys.stderr.write(f"agent-doc: internal error: {type(exc).__name__}: {exc}\n")
    return 70
