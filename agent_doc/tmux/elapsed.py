"""A one-line elapsed-time display on stderr while something is awaited.

Shown only when stderr is a terminal: ``agent-doc: waiting for the agent's
prompt in pane %4… 3 s``, redrawn in place once a second and erased when the
wait ends, so logs and pipes never see it.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO


class ElapsedLine:
    """Context manager; call :meth:`tick` with the seconds waited so far."""

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.shown = -1
        try:
            self.enabled = self.stream.isatty()
        except (AttributeError, ValueError):  # closed or not a file
            self.enabled = False

    def tick(self, elapsed: float) -> None:
        """Redraw the line when a new whole second has passed."""
        second = int(elapsed)
        if not self.enabled or second == self.shown:
            return
        self.shown = second
        self.stream.write(f"\r\x1b[Kagent-doc: {self.what}… {second} s")
        self.stream.flush()

    def __enter__(self) -> ElapsedLine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.enabled and self.shown >= 0:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
