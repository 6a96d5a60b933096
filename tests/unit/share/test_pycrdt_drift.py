"""The pycrdt, pycrdt-websocket, pycrdt-store and httpx-ws API that
``agent_doc.share`` (and ``document.yrs_codec``) use still looks the way it
was written against (pycrdt 0.14, pycrdt-websocket 0.16, pycrdt-store 0.1,
httpx-ws 0.9).

When one of these fails after an upgrade, re-read that part of the library
and adjust the code that uses it before changing the expectation here. Every
use goes through public names; the one behaviour below that presence relies
on (an own state's removal moves its clock by one) is pinned by a test too.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import httpx
import httpx_ws
import pycrdt
import pytest
from pycrdt.store import BaseYStore
from pycrdt.store import SQLiteYStore
from pycrdt.store import YDocNotFound
from pycrdt.websocket import WebsocketServer
from pycrdt.websocket import YRoom
from pycrdt.websocket import websocket_server
from pycrdt.websocket.asgi_server import ASGIWebsocket

PACKAGE = Path(__file__).resolve().parents[3] / "agent_doc"

USED: list[tuple[Any, str, list[str]]] = [
    (pycrdt.Awareness, "__init__", ["self", "ydoc", "outdated_timeout"]),
    (pycrdt.Awareness, "set_local_state", ["self", "state"]),
    (pycrdt.Awareness, "get_local_state", ["self"]),
    (pycrdt.Awareness, "set_local_state_field", ["self", "field", "value"]),
    (pycrdt.Awareness, "remove_awareness_states", ["self", "client_ids", "origin"]),
    (pycrdt.Awareness, "encode_awareness_update", ["self", "client_ids"]),
    (pycrdt.Awareness, "apply_awareness_update", ["self", "update", "origin"]),
    (pycrdt.Awareness, "observe", ["self", "callback"]),
    (pycrdt.Awareness, "start", ["self", "task_status"]),
    (pycrdt.Decoder, "__init__", ["self", "stream"]),
    (pycrdt.Decoder, "read_var_uint", ["self"]),
    (pycrdt.Decoder, "read_message", ["self"]),
    (pycrdt.Encoder, "write_var_uint", ["self", "num"]),
    (pycrdt.Encoder, "write_var_string", ["self", "text"]),
    (pycrdt.Encoder, "to_bytes", ["self"]),
    (pycrdt, "create_awareness_message", ["data"]),
    (pycrdt, "read_message", ["stream"]),
    (pycrdt, "create_sync_message", ["ydoc"]),
    (pycrdt, "merge_updates", ["updates"]),
    (pycrdt.Provider, "__init__", ["self", "doc", "channel", "log"]),
    (pycrdt.Doc, "__init__", ["self", "client_id"]),
    (pycrdt.Doc, "observe", ["self", "callback"]),
    (pycrdt.Doc, "unobserve", ["self", "subscription"]),
    (pycrdt.Doc, "get_update", ["self", "state"]),
    (pycrdt.Doc, "apply_update", ["self", "update"]),
    (pycrdt.Doc, "get", ["self", "key", "type"]),
    (pycrdt.Doc, "get_state", ["self"]),
    (pycrdt.Doc, "transaction", ["self", "origin"]),
    (pycrdt.Text, "insert", ["self", "index", "value"]),
    (pycrdt.Text, "__delitem__", ["self", "key"]),
    (pycrdt.Text, "observe", ["self", "callback"]),
    (pycrdt.Map, "observe", ["self", "callback"]),
    (
        pycrdt.UndoManager,
        "__init__",
        ["self", "scopes", "capture_timeout_millis", "timestamp"],
    ),
    (pycrdt.UndoManager, "include_origin", ["self", "origin"]),
    (pycrdt.UndoManager, "undo", ["self"]),
    (pycrdt.UndoManager, "redo", ["self"]),
    (pycrdt.UndoManager, "can_undo", ["self"]),
    (pycrdt.UndoManager, "can_redo", ["self"]),
    (
        YRoom,
        "__init__",
        ["self", "ready", "ystore", "exception_handler", "log", "ydoc"],
    ),
    (YRoom, "serve", ["self", "channel"]),
    (
        WebsocketServer,
        "__init__",
        ["self", "rooms_ready", "auto_clean_rooms", "exception_handler", "log"],
    ),
    (WebsocketServer, "start_room", ["self", "room"]),
    (WebsocketServer, "serve", ["self", "websocket"]),
    (websocket_server, "exception_logger", ["exception", "log"]),
    (ASGIWebsocket, "__init__", ["self", "receive", "send", "path"]),
    (ASGIWebsocket, "recv", ["self"]),
    (ASGIWebsocket, "send", ["self", "message"]),
    (SQLiteYStore, "__init__", ["self", "path", "metadata_callback", "log"]),
    (BaseYStore, "start", ["self", "task_status"]),
    (BaseYStore, "stop", ["self"]),
    (BaseYStore, "apply_updates", ["self", "ydoc"]),
    (SQLiteYStore, "write", ["self", "data"]),
    (
        httpx_ws,
        "aconnect_ws",
        [
            "url",
            "client",
            "keepalive_ping_interval_seconds",
            "keepalive_ping_timeout_seconds",
            "kwargs",
        ],
    ),
]
"""(owner, name, the parameters we pass or rely on, in their order)."""


def _name(owner: Any) -> str:
    return str(getattr(owner, "__name__", owner))


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    USED,
    ids=[f"{_name(o)}.{n}" for o, n, _ in USED],
)
def test_a_used_signature_still_takes_what_we_pass(
    owner: Any, name: str, parameters: list[str]
) -> None:
    actual = list(inspect.signature(getattr(owner, name)).parameters)
    assert [p for p in actual if p in parameters] == parameters, actual


async def test_the_attributes_we_read_and_set_still_exist() -> None:
    room = YRoom(ready=True, ydoc=pycrdt.Doc())
    assert isinstance(room.awareness, pycrdt.Awareness)
    assert isinstance(room.clients, set)
    assert hasattr(room.ydoc_observed, "wait")
    server = WebsocketServer(rooms_ready=True, auto_clean_rooms=False)
    assert isinstance(server.rooms, dict)  # session.py registers its own rooms
    assert isinstance(inspect.getattr_static(SQLiteYStore, "db_path"), str)
    # session.py waits for it before switching the database to WAL
    assert "db_initialized" in inspect.get_annotations(SQLiteYStore)
    assert issubclass(YDocNotFound, Exception)
    provider = pycrdt.Provider(pycrdt.Doc(), _NoChannel())
    assert hasattr(provider, "synced")
    assert hasattr(provider, "__aenter__")
    awareness = pycrdt.Awareness(pycrdt.Doc())
    assert isinstance(awareness.client_id, int)
    assert isinstance(inspect.getattr_static(pycrdt.Awareness, "states"), property)
    assert hasattr(pycrdt.TransactionEvent, "update")  # persist gathers it
    response = httpx.Response(403, request=httpx.Request("GET", "http://x"))
    assert httpx_ws.WebSocketUpgradeError(response).response.status_code == 403
    assert issubclass(httpx_ws.WebSocketUpgradeError, httpx_ws.HTTPXWSException)


def test_the_message_types_are_the_y_protocols_ones() -> None:
    assert int(pycrdt.YMessageType.SYNC) == 0
    assert int(pycrdt.YMessageType.AWARENESS) == 1
    sync = pycrdt.YSyncMessageType
    assert [int(sync.SYNC_STEP1), int(sync.SYNC_STEP2), int(sync.SYNC_UPDATE)] == [
        0,
        1,
        2,
    ]


def test_removing_our_own_state_moves_its_clock_by_one() -> None:
    """``Presence.renew`` skips the server's "left" clock this way."""
    awareness = pycrdt.Awareness(pycrdt.Doc())
    me = awareness.client_id
    awareness.set_local_state({"user": {"name": "ann"}})
    before = _clock(awareness, me)
    awareness.remove_awareness_states([me], "renew")
    awareness.set_local_state({"user": {"name": "ann"}})
    assert _clock(awareness, me) == before + 2


def test_no_private_pycrdt_state_is_touched() -> None:
    """``Awareness.meta`` is pycrdt's bookkeeping: presence works without it."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\.meta\b|awareness\._", line)
    ]
    assert found == []


def _clock(awareness: pycrdt.Awareness, client: int) -> int:
    decoder = pycrdt.Decoder(awareness.encode_awareness_update([client]))
    assert decoder.read_var_uint() == 1
    assert decoder.read_var_uint() == client
    return decoder.read_var_uint()


class _NoChannel:
    path = "/room"

    async def send(self, message: bytes) -> None:
        raise AssertionError("not connected")

    async def recv(self) -> bytes:
        raise AssertionError("not connected")
