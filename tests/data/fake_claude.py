#!/usr/bin/env python3
"""A stand-in for the claude CLI: same argv, same JSON on stdout.

Behaviour is chosen by FAKE_CLAUDE_MODE: ok (default), error, badjson, exit1,
hang, empty, silent (prints nothing, exits
FAKE_CLAUDE_EXIT with a line on stderr), lost (a ``--resume`` session is gone:
answers from a new session, as an agent that lost its history does),
lost-error (a ``--resume`` fails as claude's does: "No conversation found"). The argv and the prompt are recorded to FAKE_CLAUDE_LOG (JSON)
when set. The answer is FAKE_CLAUDE_REPLY, or a reply quoting the prompt size.

Kept for what the real claude cannot be made to show (issue 36): invalid or
empty JSON, an answer from another session, a crash with stderr, and the exact
argv/prompt record the many cycle tests assert cheaply. The real claude against
a scripted model is in ``tests/agents/``.
"""

import json
import os
import sys
import time


def main() -> int:
    argv = sys.argv[1:]
    prompt = sys.stdin.read()
    log = os.environ.get("FAKE_CLAUDE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"argv": argv, "prompt": prompt}) + "\n")
    mode = os.environ.get("FAKE_CLAUDE_MODE", "ok")
    if mode == "hang":
        time.sleep(3600)
    if mode == "exit1":
        sys.stderr.write("fake claude: simulated failure\n")
        return 1
    if mode == "silent":
        sys.stderr.write("warming up\nfake claude: quota exhausted\n")
        return int(os.environ.get("FAKE_CLAUDE_EXIT", "0"))
    if mode == "badjson":
        sys.stdout.write("this is not json\n")
        return 0
    session = "sess-" + str(len(prompt))
    resuming = "--resume" in argv
    if resuming and mode == "lost-error":
        sys.stderr.write(
            "No conversation found with session ID: "
            + argv[argv.index("--resume") + 1]
            + "\n"
        )
        return 1
    if resuming and mode != "lost":
        session = argv[argv.index("--resume") + 1]
    reply = os.environ.get(
        "FAKE_CLAUDE_REPLY", f"Answer to a {len(prompt)}-char prompt."
    )
    if mode == "empty":
        reply = ""
    out = {
        "type": "result",
        "result": reply,
        "session_id": session,
        "is_error": mode == "error",
    }
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
