"""Ending a fast command without the interpreter's teardown.

After ``write``, ``diff``, ``patch`` and the other per-turn commands, the
process runs its ``atexit`` handlers (logging's among them), flushes stdout
and stderr and calls ``os._exit``: the teardown (module and object clean-up)
costs milliseconds and does nothing a finished command needs.
"""

from __future__ import annotations

import atexit
import os
import sys


def end_process(code: int) -> None:
    """Exit with ``code`` now: the ``atexit`` handlers run and stdout and stderr
    are flushed, but the interpreter's teardown is skipped.

    Every file a command writes is closed before it returns (state files go
    through :mod:`agent_doc.store.atomic`), so only the teardown is skipped.
    While a non-daemon thread still runs, the normal exit waits for it instead.
    Background work that was never waited for is a bug: it raises.
    """
    # A command that never started background work or a thread never imported
    # their modules (and so does not pay for them here either).
    background = sys.modules.get("agent_doc._runtime.background")
    if background is not None and background.pending():
        raise RuntimeError(
            f"{background.pending()} background task(s) were never waited for"
        )
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t.is_alive() and not t.daemon and t is not threading.main_thread()
        for t in threading.enumerate()
    ):
        sys.exit(code)
    # Private: CPython has no public call that runs the handlers before exit.
    atexit._run_exitfuncs()  # first: a handler may still write
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: as Python's own exit
            code = code or 120
    os._exit(code)
