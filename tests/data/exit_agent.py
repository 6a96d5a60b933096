"""A stand-in agent that exits at once with status 3 (issue 15).

tmux 3.3 marks a pane dead when its terminal reaches EOF and, when that comes
before it reaps the process, never records the exit status. A child that holds
the terminal a moment longer makes tmux see the exit first, so the pane always
reports status 3 (the tests of a quick failure need a known status; an unknown
one is tested with the fake agent's ``/hangup``).

Kept (issue 36): a pane behaviour a real CLI cannot be made to show on demand.
"""

from __future__ import annotations

import subprocess
import sys

if __name__ == "__main__":
    sys.stdout.write("exit agent: bye\n")
    sys.stdout.flush()
    subprocess.Popen(["sleep", "1"])  # holds the terminal after we exit
    raise SystemExit(3)
