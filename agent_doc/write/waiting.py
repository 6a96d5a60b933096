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
import threading
import time
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import TextIO

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


CLEAR_LINE = "\r\x1b[K"
"""Back to the line's start and erase it."""


@contextlib.contextmanager
def elapsed_on_terminal(
    what: str, *, first_tick: float = FIRST_TICK_S, stream: TextIO | None = None
) -> Iterator[None]:
    """Show ``agent-doc: <what>… N s`` on stderr once a second while the body
    runs, only when stderr (or ``stream``) is a terminal; the line is erased
    afterwards. Nothing is shown before ``first_tick`` seconds.

    The one elapsed-time display of every wait: ``run`` for the agent, a write
    for the editor, ``route`` for the agent's prompt.
    """
    out = sys.stderr if stream is None else stream
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        tty = False
    if not tty:
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    shown = threading.Event()

    def tick() -> None:
        wait = first_tick
        while not done.wait(wait):
            seconds = int(time.monotonic() - started)
            _write(out, f"{CLEAR_LINE}agent-doc: {what}… {seconds} s")
            shown.set()
            wait = 1.0

    ticker = threading.Thread(target=tick, name="agent-doc-elapsed", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        if shown.is_set():
            _write(out, CLEAR_LINE)


def _write(out: TextIO, text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        out.write(text)
        out.flush()


def kept_pending_message(reason: str, path: Path) -> str:
    """The one line for a write the editor did not apply: why, and that the
    answer waits in ``.agent-doc/pending/`` for ``recover`` (or ``--force-disk``)."""
    return (
        f"{reason}; nothing was written and the answer is kept as pending: "
        f"`agent-doc recover {path}` writes it once the editor answers, "
        f"`agent-doc recover --force-disk {path}` writes the file now"
    )
