"""The project socket: registration, NDJSON protocol, errors, cleanup."""

# ruff: noqa: ASYNC240 - small filesystem checks in async tests are fine

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

DOC = "# Doc\n\n<!-- agent:exchange -->\nHello\n<!-- /agent:exchange -->\n"


async def registration(project: Path, editor: Editor) -> dict[str, Any]:
    """Wait (bounded) for the server's registration in ``project``."""
    servers = project / ".agent-doc" / "servers"

    def found() -> list[Path]:
        return list(servers.glob("*.json")) if servers.is_dir() else []

    entries = await editor.wait_for(found, what="server registration")
    assert len(entries) == 1
    return json.loads(entries[0].read_text())


async def ask(sock: str, *lines: bytes) -> list[dict[str, Any]]:
    """Send raw request lines on one connection; return one reply per line."""
    reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(sock), 5)
    replies = []
    try:
        for line in lines:
            writer.write(line)
            await writer.drain()
            replies.append(json.loads(await asyncio.wait_for(reader.readline(), 5)))
    finally:
        writer.close()
    return replies


async def barrier(client: LanguageClient) -> None:
    """Return once the server processed every notification sent before."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="agentDoc.noSuchCommand")
            ),
            5,
        )


def request(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


@pytest.fixture
async def proj_editor(client: LanguageClient, project: Path) -> Editor:
    return await start_editor(client, root=project)


async def test_registration_points_to_a_private_socket(proj_editor, project):
    reg = await registration(project, proj_editor)
    assert reg["roots"] == [str(project.resolve())]
    sock = Path(reg["socket"])
    assert stat.S_ISSOCK(sock.stat().st_mode)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    assert sock.parent == Path(os.environ["XDG_RUNTIME_DIR"]) / "agent-doc"
    assert reg["pid"] != os.getpid()


async def test_read_and_typing_report_the_live_buffer(proj_editor, project, client):
    reg = await registration(project, proj_editor)
    doc = project / "a.md"
    doc.write_text(DOC)
    uri = doc.as_uri()
    proj_editor.open(uri, DOC)
    proj_editor.append(uri, "unsaved\n")
    await barrier(client)
    closed = project / "closed.md"
    closed.write_text(DOC)
    read, typing, not_open, not_typed = await ask(
        reg["socket"],
        request(type="read", file=str(doc)),
        request(type="typing", file=str(doc)),
        request(type="read", file=str(closed)),
        request(type="typing", file=str(closed)),
    )
    typed_ms = read.pop("last_typed_ms")  # the CLI picks the editor typed in last
    assert read == {"ok": True, "open": True, "text": DOC + "unsaved\n", "version": 2}
    assert typed_ms == typing["last_typed_ms"]
    assert typing["ok"]
    assert typing["open"]
    assert abs(typing["last_typed_ms"] / 1000 - time.time()) < 30
    assert not_open == {"ok": True, "open": False}
    assert not_typed == {"ok": True, "open": False}


async def test_bad_requests_get_errors_and_the_server_stays_up(proj_editor, project):
    reg = await registration(project, proj_editor)
    outside = project.parent / "outside.md"
    outside.write_text(DOC)
    replies = await ask(
        reg["socket"],
        b"{not json\n",
        b"[1, 2]\n",
        request(type="launch-missiles"),
        request(type="read", file=str(outside)),
        request(type="write", file=str(project / "x.md"), response=3),
        request(type="read", file=str(project / "none.md")),
    )
    assert [r["ok"] for r in replies] == [False, False, False, False, False, True]
    assert "bad JSON" in replies[0]["error"]
    assert "unknown request type" in replies[2]["error"]
    assert "outside" in replies[3]["error"]


async def test_oversized_line_is_refused_and_server_stays_up(proj_editor, project):
    reg = await registration(project, proj_editor)
    huge = b'{"type": "read", "file": "' + b"x" * (16 * 1024 * 1024 + 10) + b'"}\n'
    reader, writer = await asyncio.open_unix_connection(reg["socket"])
    writer.write(huge)
    reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
    writer.close()
    assert reply["ok"] is False
    assert "longer than" in reply["error"]
    (ok,) = await ask(reg["socket"], request(type="read", file=str(project / "z.md")))
    assert ok == {"ok": True, "open": False}


async def test_vcs_refresh_notifies_the_client(proj_editor, project, client):
    reg = await registration(project, proj_editor)
    got = asyncio.Event()
    client.feature("agentDoc/vcsRefresh")(lambda ls, params: got.set())
    (reply,) = await ask(reg["socket"], request(type="vcs_refresh"))
    assert reply == {"ok": True}
    await asyncio.wait_for(got.wait(), 5)


async def test_shutdown_removes_socket_and_registration(client, project):
    editor = await start_editor(client, root=project)
    reg = await registration(project, editor)
    await asyncio.wait_for(client.shutdown_session(), 10)
    client.capabilities = None  # the fixture must not shut it down again
    assert not Path(reg["socket"]).exists()
    assert list((project / ".agent-doc" / "servers").glob("*.json")) == []


async def test_stale_registration_is_removed_on_start(client, project):
    servers = project / ".agent-doc" / "servers"
    servers.mkdir()
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await dead.wait()
    stale_sock = project / "stale.sock"
    with socket.socket(socket.AF_UNIX) as left_behind:
        left_behind.bind(str(stale_sock))  # a real socket file, as a killed server's
    victim = project / "victim.txt"  # a hostile registration must not delete files
    victim.write_text("keep me")
    (servers / "2.json").write_text(
        json.dumps({"pid": dead.pid, "socket": str(victim), "roots": []})
    )
    (servers / "1.json").write_text(
        json.dumps({"pid": dead.pid, "socket": str(stale_sock), "roots": []})
    )
    editor = await start_editor(client, root=project)
    await editor.wait_for(lambda: not (servers / "1.json").exists(), what="prune")
    assert not stale_sock.exists()
    assert victim.read_text() == "keep me"
    reg = await registration(project, editor)
    assert Path(reg["socket"]).exists()


async def test_folder_without_agent_doc_is_not_registered(client, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    editor = await start_editor(client, root=plain)
    sockets = Path(os.environ["XDG_RUNTIME_DIR"]) / "agent-doc"
    await editor.wait_for(lambda: list(sockets.glob("*.sock")), what="socket")
    assert not (plain / ".agent-doc").exists()


async def test_sigterm_removes_socket_and_registration(client, project):
    editor = await start_editor(client, root=project)
    reg = await registration(project, editor)
    server = client._server
    assert server is not None
    server.send_signal(signal.SIGTERM)
    await asyncio.wait_for(server.wait(), 10)
    client.capabilities = None  # nothing left to shut down
    assert not Path(reg["socket"]).exists()
    assert list((project / ".agent-doc" / "servers").glob("*.json")) == []


async def test_workspace_folder_changes_update_the_registrations(
    client, project, tmp_path
):
    plain = tmp_path / "plain"
    plain.mkdir()
    editor = await start_editor(client, root=plain)
    sockets = Path(os.environ["XDG_RUNTIME_DIR"]) / "agent-doc"
    await editor.wait_for(lambda: list(sockets.glob("*.sock")), what="socket")
    folder = types.WorkspaceFolder(uri=project.as_uri(), name="proj")

    def change(added: list, removed: list) -> None:
        client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(added=added, removed=removed)
            )
        )

    change([folder], [])
    reg = await registration(project, editor)
    assert str(project.resolve()) in reg["roots"]
    change([], [folder])
    servers = project / ".agent-doc" / "servers"
    await editor.wait_for(lambda: not list(servers.glob("*.json")), what="unregister")
