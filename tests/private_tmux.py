"""One private tmux server for tests, and the bounded wait they all use.

Every test that needs tmux runs its own server (``tmux -L <prefix>-<uuid>``),
selected for agent-doc through ``AGENT_DOC_TMUX_SOCKET``, with the stand-in
agent as the command of new agent panes; it is killed when the test ends.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

FAKE_AGENT = Path(__file__).resolve().parent / "data" / "fake_agent.py"
AGENT_COMMAND = f"{sys.executable} {FAKE_AGENT}"


@contextmanager
def private_server(monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[str]:
    """Start a private server with session ``main``; yield its ``-L`` name."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("AGENT_DOC_TMUX_SOCKET", name)
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", AGENT_COMMAND)
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("TMUX_PANE", raising=False)
    base = ["tmux", "-L", name, "-f", "/dev/null"]
    subprocess.run(
        [*base, "new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "/bin/sh"],
        check=True,
    )
    subprocess.run([*base, "set-option", "-g", "default-shell", "/bin/sh"], check=True)
    try:
        yield name
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True, check=False)


def wait_for(
    predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition"
) -> None:
    """Poll ``predicate`` every 50 ms until true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
