"""Waiting for an editor to apply an answer: how long, what the person sees, and
the one line when it gives up.

A write to a document a language server has open waits for the editor to apply
the edit (``AGENT_DOC_WRITE_TIMEOUT`` seconds, default 30). While it waits, and
only when stderr is a terminal, one line on stderr counts the seconds; it is
erased when the wait ends. When the editor does not answer in time the answer
is kept as pending, and :func:`kept_pending_message` says so and how to land it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

TIMEOUT_ENV = "AGENT_DOC_WRITE_TIMEOUT"
"""Seconds a write waits for the editor (a positive number)."""

DEFAULT_TIMEOUT_S = 30.0
"""The wait when :data:`TIMEOUT_ENV` is unset or not a positive number."""

FIRST_TICK_S = 1.0
"""Seconds before the elapsed time is first shown (a quick write shows nothing)."""


def write_timeout() -> float:
    """Seconds a write waits for the editor to apply the answer."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if 0 < value < float("inf") else DEFAULT_TIMEOUT_S


@contextlib.contextmanager
def elapsed_on_terminal(what: str) -> Iterator[None]:
    """Show ``agent-doc: <what>… N s`` on stderr once a second while the body
    runs, only when stderr is a terminal; the line is erased afterwards."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        yield
        return
    import threading
    import time

    done = threading.Event()
    started = time.monotonic()
    shown = [False]

    def tick() -> None:
        while not done.wait(FIRST_TICK_S if not shown[0] else 1.0):
            seconds = int(time.monotonic() - started)
            sys.stderr.write(f"\r\x1b[Kagent-doc: {what}… {seconds} s")
            sys.stderr.flush()
            shown[0] = True

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        if shown[0]:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def kept_pending_message(reason: str, path: Path) -> str:
    """The one line for a write the editor did not apply: why, and that the
    answer waits in ``.agent-doc/pending/`` for ``recover`` (or ``--force-disk``)."""
    return (
        f"{reason}; nothing was written and the answer is kept as pending: "
        f"`agent-doc recover {path}` writes it once the editor answers, "
        f"`agent-doc recover --force-disk {path}` writes the file now"
    )
