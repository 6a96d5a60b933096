"""The server side of one peer's websocket (``agent_doc.share.presence.PeerSocket``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pycrdt
from uvicorn.protocols.utils import ClientDisconnected

from agent_doc.share.presence import PeerSocket
from agent_doc.share.presence import forget_peer
from agent_doc.share.presence import update_clocks


async def test_a_send_to_a_peer_that_just_left_is_dropped_not_raised() -> None:
    """Found by tests/editors/test_shared_editors.py: the room broadcasts from
    its own task group, and a CLI writer closing right after its acknowledged
    edit made ``send`` raise there — the room restarted, and from then on its
    updates no longer reached the store."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        raise ClientDisconnected()

    socket = PeerSocket(receive, send, "/6f1c2a10-0000-4000-8000-00000000a001")
    await socket.send(b"\x00\x02\x00")
    assert sent == [{"type": "websocket.send", "bytes": b"\x00\x02\x00"}]


def _announcement(client: int, name: str) -> tuple[pycrdt.Awareness, bytes]:
    awareness = pycrdt.Awareness(pycrdt.Doc(client_id=client))
    awareness.set_local_state({"user": {"name": name, "kind": "editor"}})
    update = awareness.encode_awareness_update([client])
    return awareness, pycrdt.create_awareness_message(update)


def _socket(*messages: bytes) -> tuple[PeerSocket, list[bytes]]:
    """A socket whose peer sends ``messages``; what it is sent is listed."""
    pending = list(messages)
    sent: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if pending:
            return {"type": "websocket.receive", "bytes": pending.pop(0)}
        return {"type": "websocket.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message["bytes"])

    return PeerSocket(receive, send, "/6f1c2a10-0000-4000-8000-00000000a001"), sent


async def test_a_yjs_clients_echo_of_other_peers_leaves_with_it_no_peer() -> None:
    """A y-websocket client sends every awareness change it hears, other
    peers' states too: when it left, the server cleared them as if they had
    left with it (and the others saw them gone until their next renewal)."""
    room = pycrdt.Awareness(pycrdt.Doc(client_id=1))
    _ann, ann_says = _announcement(2**40, "ann")
    room.apply_awareness_update(pycrdt.read_message(ann_says[1:]), "ann's socket")
    _kim, kim_says = _announcement(9, "kim")
    kim_socket, _ = _socket(kim_says, ann_says)  # her own state, then the echo
    kim_socket.room_awareness = room
    for message in (await kim_socket.recv(), await kim_socket.recv()):
        room.apply_awareness_update(pycrdt.read_message(message[1:]), kim_socket)
    assert kim_socket.awareness_ids == {9}

    ann_socket, told = _socket()
    await forget_peer(SimpleNamespace(awareness=room, clients=[ann_socket]), kim_socket)
    assert set(room.states) == {1, 2**40}  # ann stays; kim left
    assert [update_clocks(pycrdt.read_message(m[1:])) for m in told] == [{9: 2}]
