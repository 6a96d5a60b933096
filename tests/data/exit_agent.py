"""A stand-in agent that exits at once with status 3 (issue 15).

Kept (issue 36): a pane behaviour a real CLI cannot be made to show on demand.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.stdout.write("exit agent: bye\n")
    raise SystemExit(3)
