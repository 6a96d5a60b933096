"""Process helpers shared by the socket client, the server and state GC."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Return whether a process with ``pid`` exists (signal 0 probe)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
