"""Sharing that explains itself, read from a real ``agent-doc serve`` and the
real commands (issue 39): serve's log is one line per event, ours; it refuses
a folder that is no project; a wildcard bind names addresses peers can use and
warns that ws:// is clear text; ``share token`` says whose token it prints; a
404 is not explained as a wrong token."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import httpx_ws
import pytest

from tests.cli_runner import agent_doc
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(90)

UVICORN_WORDS = ("Started server process", "Finished server process", "Shutting down",
                 "connection open", "connection closed", "connection rejected",
                 "change detected", '"WebSocket ')  # fmt: skip


async def test_the_log_is_one_line_per_event_and_ours(project: Path) -> None:
    doc = project / "pair.md"
    doc.write_text(DOC, encoding="utf-8")
    served = ServeProcess(project).start()
    try:
        with pytest.raises(httpx_ws.WebSocketUpgradeError):
            async with (
                httpx.AsyncClient() as client,
                httpx_ws.aconnect_ws(
                    served.room(), client, headers={"Authorization": "Bearer nope"}
                ),
            ):
                pass
        served.wait_line(r"refused .*: wrong token")
        async with peer(served.room(), token_of(project)) as alice:
            alice.type(len(str(alice.text).encode()), "typed\n")
            await wait_file(doc, lambda t: "typed" in t)
        served.wait_line(r"left room " + SESSION)
        doc.write_text(doc.read_text() + "from outside\n", encoding="utf-8")
        served.wait_line(r"outside edit of .*pair\.md")
        assert served.stop() == 0
    finally:
        served.kill()
    lines = served.lines
    assert all(line.startswith("agent-doc serve: ") for line in lines), lines
    assert not [ln for ln in lines if any(w in ln for w in UVICORN_WORDS)], lines
    refusals = [
        ln for ln in lines if " 403" in ln or "refused" in ln
    ]  # not a port 403xx
    assert len(refusals) == 1, lines
    assert len([ln for ln in lines if "joined room" in ln]) == 1, lines
    assert lines[-1] == "agent-doc serve: stopped; every room is written to its file"


def test_serve_outside_a_project_refuses_and_creates_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-project"
    folder.mkdir()
    result = agent_doc("serve", "--port", "0", cwd=folder, timeout=20)
    assert result.returncode == 1
    assert result.stderr == (
        f"agent-doc: {folder} is not an agent-doc project (no .agent-doc/ there or "
        "above): run agent-doc init in your project first, or pass --root\n"
    )
    assert list(folder.iterdir()) == []


def test_a_wildcard_bind_names_usable_addresses_and_warns_of_clear_text(
    project: Path,
) -> None:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    served = ServeProcess(project, "--host", "0.0.0.0")
    try:
        found = served.wait_line(
            r"listening on ws://0\.0\.0\.0:(\d+) \(every address.*peers join (\S+)"
        )
        port, first = found.group(1), found.group(2)
        assert first == f"ws://{socket.gethostname()}:{port}/<session"  # id>
        served.wait_line(r"warning: ws:// is clear text, without TLS")
    finally:
        served.kill()
    loopback = ServeProcess(project).start()
    try:
        assert not any("clear text" in line for line in loopback.lines)
    finally:
        loopback.kill()


def test_share_token_says_whose_token_and_when_it_was_made(project: Path) -> None:
    made = agent_doc("share", "token", cwd=project)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == token_of(project)
    assert made.stderr.startswith(
        f"agent-doc: created a new token for the project {project}: it opens the "
        "rooms of an agent-doc serve run in this project only"
    ), made.stderr
    again = agent_doc("share", "token", cwd=project)
    assert again.stdout == made.stdout
    assert again.stderr == f"agent-doc: the token of the project {project}\n"
    rotated = agent_doc("share", "token", "--rotate", cwd=project)
    assert rotated.stdout != made.stdout
    assert "peers already connected with it stay until they disconnect" in (
        rotated.stderr
    )


def test_run_room_against_a_404_does_not_blame_the_token(
    project: Path, tmp_path: Path
) -> None:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    token = tmp_path / "token"
    token.write_text("some-token\n")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    web = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert web.stdout is not None
        web.stdout.readline()  # "Serving HTTP on …": it listens
        url = f"ws://127.0.0.1:{port}/{SESSION}"
        result = agent_doc(
            "run", "pair.md", "--room", url, "--token-file", str(token), cwd=project
        )
    finally:
        web.kill()
        web.wait(timeout=10)
    assert result.returncode == 1
    assert result.stderr == (
        f"agent-doc: {url} refused the connection (HTTP 404): nothing there takes "
        "rooms: not an agent-doc serve, or a wrong host, port or path in the URL\n"
    )
    assert "token" not in result.stderr
