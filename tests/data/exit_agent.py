"""A stand-in agent that exits at once with status 3 (issue 15)."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.stdout.write("exit agent: bye\n")
    raise SystemExit(3)
