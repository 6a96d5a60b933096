"""``agent-doc hook`` through the CLI, the listener as a real process, lifecycle hooks."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_doc.store.event_socket import bind_path
from tests.cli_runner import cli

DOC = """---
agent_doc_session: s-1
agent_doc_format: template
---
<!-- agent:exchange patch=append -->
## User

Hi?
<!-- /agent:exchange -->
"""


def test_fire_then_poll(project: Path) -> None:
    (project / "d.md").write_text(DOC)
    fired = cli(project, "hook", "fire", "claim", "d.md")
    assert fired.returncode == 0, fired.stderr
    polled = cli(project, "hook", "poll", "claim", "--since", "60")
    events = json.loads(polled.stdout)
    assert [(e["event"], e["session"]) for e in events] == [("claim", "s-1")]
    gc = cli(project, "hook", "gc", "--root", str(project))
    assert gc.returncode == 0
    assert "0 expired" in gc.stderr


def test_listen_process_acks_socket_events_and_cleans_up(project: Path) -> None:
    (project / "d.md").write_text(DOC)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_doc.cli.entry",
            "hook",
            "listen",
            "--root",
            str(project),
        ],
        stderr=subprocess.DEVNULL,
    )
    sock = bind_path(project)  # the runtime dir's, when the project's path is long
    try:
        deadline = time.monotonic() + 20
        while not sock.exists():
            assert time.monotonic() < deadline
            assert proc.poll() is None
            time.sleep(0.05)
        sent = cli(
            project, "hook", "fire", "post_write", "d.md", "--transport", "socket"
        )
        assert sent.returncode == 0, sent.stderr
        events = json.loads(cli(project, "hook", "poll", "post_write").stdout)
        assert len(events) == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    assert not sock.exists()
    refused = cli(
        project, "hook", "fire", "post_write", "d.md", "--transport", "socket"
    )
    assert refused.returncode == 1
    assert "not delivered" in refused.stderr


def test_write_and_commit_fire_lifecycle_hooks(project: Path) -> None:
    doc = project / "d.md"
    doc.write_text(DOC)
    wrote = cli(
        project,
        "write",
        "d.md",
        stdin="<!-- patch:exchange -->\nHello.\n<!-- /patch:exchange -->\n",
    )
    assert wrote.returncode == 0, wrote.stderr
    assert len(json.loads(cli(project, "hook", "poll", "post_write").stdout)) == 1
    committed = cli(project, "commit", "d.md")
    assert committed.returncode == 0, committed.stderr
    events = json.loads(cli(project, "hook", "poll", "post_commit").stdout)
    assert [e["session"] for e in events] == ["s-1"]
    status = json.loads(cli(project, "hook", "poll", "post_write").stdout)
    assert len(status) == 1
