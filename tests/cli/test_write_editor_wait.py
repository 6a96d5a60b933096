"""``write`` to an editor that does not answer: one honest line, the answer kept.

Once the write waited 30 s (20 s in the server) without a word, then printed
"agent-doc: agent-doc write: the editor did not apply the edit in time": a
doubled prefix, no word that the answer was kept for ``recover`` nor of
``--force-disk``. Now the wait is ``AGENT_DOC_WRITE_TIMEOUT`` seconds, the
elapsed time is shown while it lasts (only on a terminal), and the one line
says where the answer is and the two ways to land it, both of which work.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc
from tests.socket_server import FakeServer
from tests.socket_server import register

DOC = """---
agent_doc_format: template
---

<!-- agent:exchange -->
## User

Hello?
<!-- /agent:exchange -->
"""
RESPONSE = "<!-- patch:exchange -->\nHi there.\n<!-- /patch:exchange -->\n"


def expected_line(doc: str) -> str:
    return (
        "agent-doc: the editor did not apply the edit in time "
        f"(server {os.getpid()} did not answer); nothing was written and the "
        f"answer is kept as pending: `agent-doc recover {doc}` writes it once "
        f"the editor answers, `agent-doc recover --force-disk {doc}` writes the "
        "file now\n"
    )


@pytest.fixture
def silent_server(project: Path) -> Iterator[FakeServer]:
    """A real socket server that accepts every request and never answers."""
    server = FakeServer(lambda _request: None)
    register(project, os.getpid(), server.path)
    yield server
    server.close()


def test_a_silent_editor_gives_one_line_and_recover_force_disk_lands_it(
    project: Path, silent_server: FakeServer
) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    started = time.monotonic()
    res = agent_doc(
        "write", "doc.md", cwd=project, stdin=RESPONSE,
        env={"AGENT_DOC_WRITE_TIMEOUT": "1.5"},
    )  # fmt: skip
    assert time.monotonic() - started < 20  # not the 30 s default
    assert res.returncode == 75
    assert res.stderr == expected_line("doc.md")  # no terminal: no elapsed time
    assert [r["type"] for r in silent_server.requests] == ["write"]
    assert doc.read_text() == DOC
    store = StateStore(project)
    assert store.load_pending(doc) == RESPONSE
    res = agent_doc("recover", "--force-disk", "doc.md", cwd=project)
    assert res.returncode == 0, res.stderr
    assert doc.read_text().count("Hi there.") == 1
    assert store.load_pending(doc) is None


def test_recover_lands_the_answer_once_the_editor_is_gone(
    project: Path, silent_server: FakeServer
) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc(
        "write", "doc.md", cwd=project, stdin=RESPONSE,
        env={"AGENT_DOC_WRITE_TIMEOUT": "1"},
    )  # fmt: skip
    assert res.returncode == 75, res.stderr
    assert res.stderr.count("\n") == 1
    silent_server.close()  # the editor quit; its registration stays behind
    res = agent_doc("recover", "doc.md", cwd=project)
    assert res.returncode == 0, res.stderr
    assert doc.read_text().count("Hi there.") == 1
    assert StateStore(project).load_pending(doc) is None


def test_the_wait_shows_elapsed_seconds_on_a_terminal(
    project: Path, silent_server: FakeServer
) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "write", "doc.md"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env={**os.environ, "AGENT_DOC_WRITE_TIMEOUT": "3.5"},
    )
    os.close(slave)
    assert proc.stdin is not None
    proc.stdin.write(RESPONSE.encode())
    proc.stdin.close()
    seen = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=30) == 75
    out = seen.decode()
    waiting = "agent-doc: waiting for the editor to apply the answer… "
    assert f"{waiting}1 s" in out
    assert f"{waiting}2 s" in out
    last = out.rsplit("\r\x1b[K", 1)[1]  # the counter is erased before the line
    assert last.replace("\r\n", "\n") == expected_line("doc.md")


def test_the_servers_own_timeout_gets_one_prefix(project: Path) -> None:
    """The server answers exit 75 with its label ("agent-doc write: …"): once
    printed after the CLI's own prefix as "agent-doc: agent-doc write: …"."""
    doc = project / "doc.md"
    doc.write_text(DOC)
    error = "agent-doc write: the editor did not apply the edit in time"
    server = FakeServer(lambda _r: {"ok": False, "error": error, "code": 75})
    try:
        register(project, os.getpid(), server.path)
        res = agent_doc("write", "doc.md", cwd=project, stdin=RESPONSE)
    finally:
        server.close()
    assert res.returncode == 75
    assert res.stderr == (
        "agent-doc: the editor did not apply the edit in time; nothing was "
        "written and the answer is kept as pending: `agent-doc recover doc.md` "
        "writes it once the editor answers, `agent-doc recover --force-disk "
        "doc.md` writes the file now\n"
    )
    assert StateStore(project).load_pending(doc) == RESPONSE


def test_patch_to_a_silent_editor_gets_one_prefix(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    error = "agent-doc patch: the editor did not apply the edit in time"
    server = FakeServer(lambda _r: {"ok": False, "error": error, "code": 75})
    try:
        register(project, os.getpid(), server.path)
        res = agent_doc("patch", "doc.md", "exchange", "x", cwd=project)
    finally:
        server.close()
    assert res.returncode == 75
    assert res.stderr == "agent-doc: the editor did not apply the edit in time\n"
    assert doc.read_text() == DOC
