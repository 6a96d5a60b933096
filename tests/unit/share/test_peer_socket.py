"""The server side of one peer's websocket (``agent_doc.share.presence.PeerSocket``)."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.utils import ClientDisconnected

from agent_doc.share.presence import PeerSocket


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
