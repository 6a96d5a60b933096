"""The CLI's single error boundary and its output helpers.

Every command raises :class:`agent_doc.errors.AgentDocError` for expected
failures; this module turns it into one line on stderr and the error's exit
code. Nothing else in the CLI prints errors or chooses exit codes.
"""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any


def fail(message: str, code: int = 1) -> None:
    """Print ``agent-doc: <message>`` on stderr and exit with ``code``."""
    sys.stderr.write(f"agent-doc: {message}\n")
    raise SystemExit(code)


def emit_json(value: Any) -> None:
    """Write ``value`` as JSON (one document, trailing newline) on stdout."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def emit(text: str) -> None:
    """Write ``text`` on stdout exactly as given."""
    sys.stdout.write(text)


def info(message: str) -> None:
    """Write a progress/diagnostic line on stderr (never stdout)."""
    sys.stderr.write(f"{message}\n")
