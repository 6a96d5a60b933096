"""ServerLink against small real Unix-socket servers running in threads."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.errors import ServerLinkError
from agent_doc.errors import ServerTimeout
from agent_doc.write import server_link
from agent_doc.write.server_link import ServerLink
from tests.socket_server import FakeServer
from tests.socket_server import Handler
from tests.socket_server import dead_pid
from tests.socket_server import register


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    started: list[FakeServer] = []
    yield started
    for srv in started:
        srv.close()


def owner_of(doc: Path, text: str) -> Handler:
    def handle(req: dict[str, Any]) -> dict[str, Any]:
        if req["type"] == "read":
            if req["file"] == str(doc.resolve()):
                return {"ok": True, "open": True, "text": text, "version": 7}
            return {"ok": True, "open": False}
        if req["type"] == "write":
            return {"ok": True, "content_ours": "OURS", "text": "MERGED"}
        if req["type"] == "patch":
            return {"ok": True, "text": f"patched {req['component']}"}
        if req["type"] == "typing":
            return {"ok": True, "open": True, "last_typed_ms": 1234}
        return {"ok": True}

    return handle


def test_find_owner_returns_the_server_with_the_file_open(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"
    doc.write_text("disk\n")
    other = FakeServer(lambda req: {"ok": True, "open": False})
    owner = FakeServer(owner_of(doc, "live buffer\n"))
    servers += [other, owner]
    register(project, os.getpid(), other.path)
    # Same live pid, different file name: the registry is keyed by file, not pid.
    (project / ".agent-doc" / "servers" / "b.json").write_text(
        json.dumps({"pid": os.getpid(), "socket": str(owner.path), "roots": []})
    )
    handle = ServerLink().find_owner(doc)
    assert handle is not None
    assert handle.text == "live buffer\n"
    assert handle.version == 7
    assert handle.registration.socket == str(owner.path)
    assert other.requests == [{"type": "read", "file": str(doc.resolve())}]


def test_no_owner_when_no_server_has_the_file(
    project: Path, servers: list[FakeServer]
) -> None:
    srv = FakeServer(lambda req: {"ok": True, "open": False})
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    assert ServerLink().find_owner(project / "doc.md") is None
    assert ServerLink().find_owner(Path("/nonexistent/dir/doc.md")) is None


def test_stale_registrations_are_deleted(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"
    live = FakeServer(owner_of(doc, "x"))
    servers.append(live)
    dead = register(project, dead_pid(), live.path)
    refused_dir = Path(tempfile.mkdtemp(prefix="adt-", dir="/tmp"))
    try:
        refused = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        refused.bind(str(refused_dir / "s"))
        refused.close()  # socket file exists, nobody listens → ECONNREFUSED
        refusing = register(project, os.getpid(), refused_dir / "s")
        refusing = refusing.rename(refusing.with_name("refusing.json"))
        missing = register(project, 1, project / "gone.sock")  # pid 1 is alive
        missing = missing.rename(missing.with_name("missing.json"))
        garbage = project / ".agent-doc" / "servers" / "garbage.json"
        garbage.write_text("{not json")
        assert ServerLink().find_owner(doc) is None
        assert not dead.exists()
        assert not refusing.exists()
        assert not missing.exists()
        assert not garbage.exists()
    finally:
        shutil.rmtree(refused_dir, ignore_errors=True)


def test_write_patch_reposition_typing_vcs_refresh(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"
    srv = FakeServer(owner_of(doc, "buf"))
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    link = ServerLink(project)
    handle = link.find_owner(doc)
    assert handle is not None
    reply = link.write(handle, "resp", None, origin="skill")
    assert (reply.content_ours, reply.text) == ("OURS", "MERGED")
    assert srv.requests[-1] == {
        "type": "write",
        "file": str(doc.resolve()),
        "response": "resp",
        "baseline": None,
        "origin": "skill",
        "timeout_ms": 28000,  # the server gives up before the CLI stops listening
    }
    assert link.patch(handle, "status", "ok") == "patched status"
    assert link.reposition(doc) is True
    assert srv.requests[-1] == {
        "type": "reposition",
        "file": str(doc.resolve()),
        "timeout_ms": 28000,
    }
    assert link.typing(doc) == 1234
    assert link.vcs_refresh() == 1
    assert srv.requests[-1] == {"type": "vcs_refresh"}


def test_reply_code_75_raises_server_timeout(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"

    def handle(req: dict[str, Any]) -> dict[str, Any]:
        if req["type"] == "read":
            return {"ok": True, "open": True, "text": ""}
        if req["type"] == "write":
            return {"ok": False, "error": "edit not applied", "code": 75}
        return {"ok": False, "error": "no such component"}

    srv = FakeServer(handle)
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    link = ServerLink(project)
    owner = link.find_owner(doc)
    assert owner is not None
    with pytest.raises(ServerTimeout, match="edit not applied") as exc:
        link.write(owner, "resp", "base")
    assert exc.value.exit_code == 75
    with pytest.raises(ServerLinkError, match="no such component") as err:
        link.patch(owner, "x", "y")
    assert not isinstance(err.value, ServerTimeout)


def test_hung_owner_times_out_on_write(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"

    def handle(req: dict[str, Any]) -> dict[str, Any] | None:
        if req["type"] == "read":
            return {"ok": True, "open": True, "text": ""}
        return None

    srv = FakeServer(handle)
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    link = ServerLink(project, timeout=1.0, write_timeout=0.3)
    owner = link.find_owner(doc)
    assert owner is not None
    with pytest.raises(ServerTimeout):
        link.write(owner, "resp", None)
    assert link.typing(doc) is None  # the hung server is skipped, not fatal


def test_a_server_not_answering_read_is_never_written_behind(
    project: Path, servers: list[FakeServer]
) -> None:
    srv = FakeServer(lambda req: None)  # alive, accepts, never answers
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    link = ServerLink(project, timeout=0.3)
    with pytest.raises(ServerTimeout, match="did not answer in time"):
        link.find_owner(project / "doc.md")  # it may have the document open


def test_invalid_reply_is_a_link_error(
    project: Path, servers: list[FakeServer]
) -> None:
    srv = FakeServer(lambda req: {"ok": True})
    servers.append(srv)
    srv.handler = lambda req: ["not", "an", "object"]  # type: ignore[assignment,return-value]
    with pytest.raises(ServerLinkError, match="invalid reply"):
        server_link.exchange(str(srv.path), {"type": "read"}, 1.0)


def _long_socket_server(tmp_path: Path, servers: list[FakeServer]) -> FakeServer:
    deep = tmp_path / ("d" * 120) / ("e" * 60)
    deep.mkdir(parents=True)
    srv = FakeServer(lambda req: {"ok": True, "echo": req["type"]}, sock_dir=deep)
    servers.append(srv)
    assert len(str(srv.path).encode()) > 180
    with pytest.raises(OSError):  # the direct route really is impossible
        socket.socket(socket.AF_UNIX).connect(str(srv.path))
    return srv


def test_socket_path_longer_than_sun_path(
    tmp_path: Path, servers: list[FakeServer]
) -> None:
    srv = _long_socket_server(tmp_path, servers)
    reply = server_link.exchange(str(srv.path), {"type": "vcs_refresh"}, 2.0)
    assert reply == {"ok": True, "echo": "vcs_refresh"}
    assert srv.requests == [{"type": "vcs_refresh"}]


def test_long_socket_path_symlink_fallback(
    tmp_path: Path, servers: list[FakeServer]
) -> None:
    srv = _long_socket_server(tmp_path, servers)
    before = set(Path("/tmp").glob("ad-*"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        server_link._connect_via_symlink(sock, str(srv.path))
        sock.sendall(b'{"type": "read"}\n')
        assert json.loads(sock.makefile().readline()) == {"ok": True, "echo": "read"}
    assert set(Path("/tmp").glob("ad-*")) <= before  # the short dir is removed
