#!/usr/bin/env python3
"""A slow stand-in for the claude CLI: it answers only once a gate file exists.

Every call appends ``{"pid", "argv", "prompt"}`` as one JSON line to
``GATED_AGENT_LOG`` as soon as the prompt is read (so a test can await "the
agent was called" and count calls), then waits for the file ``GATED_AGENT_GATE``
(at most 120 s; no gate set = answer at once) and prints claude's JSON with
``GATED_AGENT_REPLY`` (default "Answer N." with N the call count), in the
session ``GATED_AGENT_SESSION`` (default ``sess-gated``).

Kept (issue 36): the turn-lock tests need an answer held until the test
opens a gate, which no real CLI offers.
"""

import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    argv = sys.argv[1:]
    prompt = sys.stdin.read()
    log = Path(os.environ["GATED_AGENT_LOG"])
    with log.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"pid": os.getpid(), "argv": argv, "prompt": prompt}))
        out.write("\n")
    calls = len(log.read_text(encoding="utf-8").splitlines())
    gate = os.environ.get("GATED_AGENT_GATE")
    deadline = time.monotonic() + 120
    while gate and not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    reply = os.environ.get("GATED_AGENT_REPLY", f"Answer {calls}.")
    sys.stdout.write(
        json.dumps(
            {
                "result": reply,
                "session_id": os.environ.get("GATED_AGENT_SESSION", "sess-gated"),
                "is_error": False,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
