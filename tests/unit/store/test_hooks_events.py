"""Hook events: fire/poll/gc on files, the socket listener and transports."""

from __future__ import annotations

import json
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.errors import StateError
from agent_doc.store.event_socket import HookListener
from agent_doc.store.event_socket import bind_path
from agent_doc.store.event_socket import pointer_path
from agent_doc.store.event_socket import send_line
from agent_doc.store.event_socket import socket_path
from agent_doc.store.events import ChainTransport
from agent_doc.store.events import FileTransport
from agent_doc.store.events import HookEvent
from agent_doc.store.events import SocketTransport
from agent_doc.store.events import event_json
from agent_doc.store.events import event_listener
from agent_doc.store.events import fire_event
from agent_doc.store.events import gc_events
from agent_doc.store.events import make_event
from agent_doc.store.events import poll_events

DOC = "---\nagent_doc_session: abc-123\n---\nhello\n"


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "d.md"
    path.write_text(DOC)
    return path


@pytest.fixture
def listener(project: Path) -> Iterator[HookListener]:
    server = event_listener(project)
    thread = threading.Thread(target=server.serve)
    thread.start()
    yield server
    server.stop()
    thread.join(timeout=10)


def test_fire_stores_event_json_with_session(project: Path, doc: Path) -> None:
    event = fire_event("post_write", doc)
    files = list((project / ".agent-doc" / "hooks" / "post_write").glob("*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data == event.to_json()
    assert set(data) == {"event", "file", "session", "timestamp", "pid"}
    assert data["session"] == "abc-123"
    assert data["file"] == str(doc.resolve())


@pytest.mark.parametrize(
    ("file", "session"),
    [
        ("/tmp/plain.md", None),
        ('/tmp/q"uote\\back\tslash\n.md', "s-1"),
        ("/tmp/ünï😀 é.md", "sessión\u2028"),
        ("/tmp/\x01ctl\x7f.md", ""),
    ],
)
def test_event_json_is_what_json_dumps_gives(file: str, session: str | None) -> None:
    event = HookEvent("post_write", file, session, 1_700_000_000_123, 4242)
    line = event_json(event)
    assert line == json.dumps(event.to_json(), ensure_ascii=False)
    assert "\n" not in line


def test_poll_returns_recent_events_and_cleans_expired(
    project: Path, doc: Path
) -> None:
    old = make_event("claim", doc)
    old = type(old)(old.event, old.file, old.session, old.timestamp - 7_200_000, 1)
    FileTransport().send(project, old)
    fresh = fire_event("claim", doc)
    assert poll_events(project, "claim") == [fresh]
    assert len(list((project / ".agent-doc" / "hooks" / "claim").glob("*.json"))) == 1
    assert poll_events(project, "claim", since_s=0, now_ms=fresh.timestamp + 5) == []


def test_gc_dry_run_lists_without_deleting(project: Path, doc: Path) -> None:
    event = fire_event("post_commit", doc)
    later = event.timestamp + 3_601_000
    assert len(gc_events(project, now_ms=later, dry_run=True)) == 1
    assert len(gc_events(project, now_ms=later)) == 1
    assert gc_events(project, now_ms=later) == []


def test_invalid_event_name_is_refused(doc: Path) -> None:
    with pytest.raises(StateError, match="invalid hook event name"):
        fire_event("../escape", doc)


def test_socket_transport_is_acknowledged_and_stored(
    project: Path, doc: Path, listener: HookListener
) -> None:
    sock = socket_path(project)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert SocketTransport().send(project, make_event("layout_change", doc))
    assert [e.event for e in poll_events(project, "layout_change")] == ["layout_change"]
    assert send_line(project, "not json").startswith("error:")  # type: ignore[union-attr]


def test_chain_falls_back_to_file_without_listener(project: Path, doc: Path) -> None:
    assert not SocketTransport().send(project, make_event("x", doc))
    chain = ChainTransport(SocketTransport(), FileTransport())
    assert chain.send(project, make_event("x", doc))
    assert len(poll_events(project, "x")) == 1


def test_stale_socket_is_replaced_and_live_one_refused(project: Path) -> None:
    stale = bind_path(project)  # the runtime dir's, when the project's path is long
    stale.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale))
    dead.close()  # the file stays, nobody listens
    server = event_listener(project)
    try:
        with pytest.raises(StateError, match="already runs"):
            event_listener(project)
    finally:
        server.close()
    assert not stale.exists()


def test_long_project_path_binds_in_runtime_dir(tmp_path: Path, doc: Path) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    (deep / ".agent-doc").mkdir(parents=True)
    server = event_listener(deep)
    thread = threading.Thread(target=server.serve)
    thread.start()
    try:
        assert pointer_path(deep).read_text().strip() == str(server.path)
        assert server.path.parent.name == "agent-doc"  # the private runtime dir
        assert SocketTransport().send(deep, make_event("post_write", doc))
    finally:
        server.stop()
        thread.join(timeout=10)
    assert not pointer_path(deep).exists()
    assert not server.path.exists()


def test_a_write_fires_post_write_with_the_session_it_wrote(
    project: Path, doc: Path
) -> None:
    from agent_doc.automation.lifecycle import write_with_hooks

    response = (
        "<!-- patch:frontmatter -->\nagent_doc_session: new-1\n"
        "<!-- /patch:frontmatter -->\nanswer\n"
    )
    write_with_hooks(doc, response, force_disk=True)
    assert "agent_doc_session: new-1" in doc.read_text()
    (event,) = poll_events(project, "post_write")
    assert event.session == "new-1"
    assert event.file == str(doc.resolve())
