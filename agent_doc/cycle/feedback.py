"""Elapsed time on a terminal while agent-doc waits, so a long wait is not silence.

``run`` used to print nothing for up to its timeout while the agent worked.
:func:`elapsed` keeps one ``agent-doc: waiting for claude… 12 s`` line up to
date on stderr and clears it when the wait ends. It writes only when stderr
is a terminal: pipes, logs and tests stay clean.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

TICK_S = 1.0
"""How often the elapsed time is redrawn."""
CLEAR_LINE = "\r\x1b[K"
"""Back to the line's start and erase it."""


@contextlib.contextmanager
def elapsed(label: str, *, stream: TextIO | None = None) -> Iterator[None]:
    """Show ``agent-doc: <label>… N s`` on a terminal while the block runs."""
    out = sys.stderr if stream is None else stream
    if not _is_terminal(out):
        yield
        return
    stop = threading.Event()
    thread = threading.Thread(
        target=_tick, args=(out, label, stop), name="agent-doc-elapsed", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        _write(out, CLEAR_LINE)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


def _tick(out: TextIO, label: str, stop: threading.Event) -> None:
    """Redraw the line every :data:`TICK_S` until ``stop`` is set."""
    start = time.monotonic()
    while True:
        seconds = int(time.monotonic() - start)
        _write(out, f"{CLEAR_LINE}agent-doc: {label}… {seconds} s")
        if stop.wait(TICK_S):
            return


def _write(out: TextIO, text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        out.write(text)
        out.flush()
