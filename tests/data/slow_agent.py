#!/usr/bin/env python3
"""A stand-in agent CLI that takes its time: for the cancel tests.

It reads the prompt from stdin (like ``claude -p``), starts a child process
(``sleep``: the grandchild of agent-doc that must die with it), writes
``{"agent": PID, "child": PID}`` to ``SLOW_AGENT_PIDS`` (written atomically:
its appearance is the test's signal that the agent works), then waits
``SLOW_AGENT_SECONDS`` (default 3600) and answers claude's JSON.

``SLOW_AGENT_TRAP=1`` ignores SIGINT, SIGTERM and SIGHUP (only SIGKILL ends it);
``SLOW_AGENT_CHILD_TRAP=1`` makes the child ignore them too.

Kept (issue 36): a real CLI cannot be made to ignore signals or to hold a
child of its own on demand; Ctrl-C with the real claude is in
``tests/agents/test_claude_run.py``.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

IGNORE = "trap '' INT TERM HUP; "


def main() -> int:
    sys.stdin.read()
    if os.environ.get("SLOW_AGENT_TRAP"):
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
    seconds = float(os.environ.get("SLOW_AGENT_SECONDS", "3600"))
    trap = IGNORE if os.environ.get("SLOW_AGENT_CHILD_TRAP") else ""
    child = subprocess.Popen(
        ["/bin/sh", "-c", f"{trap}sleep {seconds + 1}; :"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    target = os.environ.get("SLOW_AGENT_PIDS")
    if target:
        partial = Path(target + ".tmp")
        partial.write_text(json.dumps({"agent": os.getpid(), "child": child.pid}))
        partial.replace(target)
    time.sleep(seconds)
    out = {"type": "result", "result": "Slow answer.", "session_id": "slow-1"}
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
