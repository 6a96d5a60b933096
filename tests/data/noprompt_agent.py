"""A stand-in agent that never draws a prompt (issue 15).

It prints a banner, then reads lines and answers ``heard: LINE``. No line it
prints starts with ``>`` or ``❯``, so only a configured ``prompt_pattern``
(for example ``^ready$``) tells route that it waits for input: it prints
``ready`` on its own line when ``NOPROMPT_SAY_READY=1``.

Kept (issue 36): a pane behaviour a real CLI cannot be made to show on demand.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    """Read lines forever; answer each."""
    sys.stdout.write("noprompt agent up\n")
    if os.environ.get("NOPROMPT_SAY_READY") == "1":
        sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        sys.stdout.write(f"heard: {line.strip()}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
