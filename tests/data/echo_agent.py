"""A stand-in agent that echoes its input before it answers (issue 15).

It draws ``> ``, reads a line, prints the line back at once (so the submitted
text is the last thing on screen), "thinks" for ``ECHO_AGENT_DELAY`` seconds
(default 1.5) and prints ``line N: 'TEXT'`` — every Enter it receives is one
numbered line, so a test can count them.

Kept (issue 36): a pane behaviour a real CLI cannot be made to show on demand.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    """Echo, think, number each line."""
    delay = float(os.environ.get("ECHO_AGENT_DELAY", "1.5"))
    sys.stdout.write("echo agent ready\n")
    count = 0
    while True:
        sys.stdout.write("> ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return 0
        count += 1
        text = line.rstrip("\n")
        sys.stdout.write(f"{text}\n")
        sys.stdout.flush()
        time.sleep(delay)
        sys.stdout.write(f"line {count}: {text!r}\n")


if __name__ == "__main__":
    raise SystemExit(main())
