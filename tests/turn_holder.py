"""Hold a document's turn lock from another real process, as a running turn does."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

HOLDER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from agent_doc.cycle.turn_lock import acquire_turn\n"
    "turn = acquire_turn(Path(sys.argv[1]), sys.argv[2])\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"  # until the test closes our stdin
    "turn.release()\n"
)


@contextlib.contextmanager
def turn_held(doc: Path, command: str = "run") -> Iterator[subprocess.Popen[str]]:
    """A process holding ``doc``'s turn until the block ends (or it is killed)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(doc), command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "held\n"  # returns once the lock is held
        yield proc
    finally:
        if proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
        proc.wait(timeout=30)
