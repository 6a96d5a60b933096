"""One connection of a long-lived room peer: its channel and its presence.

:class:`PeerChannel` is the :class:`~agent_doc.share.channel.WebsocketChannel`
a ``pycrdt.Provider`` syncs through, plus what a peer that outlives its
connections needs: a ``closed`` event set as soon as a receive or a send fails
(the provider itself never says its socket died), sends that are dropped
instead of raising once the socket is gone (the change stays in the peer's
``Doc`` and reaches the room with the next connection's sync), and awareness
(presence) messages handed to a :class:`Presence` on the way in.

:class:`Presence` holds the peer's own state (``user`` name and kind,
``cursor``; :mod:`~agent_doc.share.presence_state`) and, in a fresh
``pycrdt.Awareness`` per connection, the other peers' states — renewed and
forgotten through pycrdt's public API only. pycrdt-websocket does not send a
newcomer the states it already knows, so a peer announces itself again
whenever it sees a new peer: within one round trip everyone sees everyone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agent_doc.share.channel import WebsocketChannel
from agent_doc.share.presence_state import AGENT
from agent_doc.share.presence_state import PeerPresence
from agent_doc.share.presence_state import cursor_json
from agent_doc.share.presence_state import editor_state
from agent_doc.share.presence_state import present_peers

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pycrdt import Awareness
    from pycrdt import Doc

logger = logging.getLogger(__name__)

_AWARENESS = 1
"""``YMessageType.AWARENESS``: the first byte of an awareness message."""


class Presence:
    """This peer's awareness state and the peers it sees.

    Two ``pycrdt.Awareness`` objects, both used through their public API: ours
    (:attr:`awareness`, for the whole life of the peer: its clock only grows)
    and the room's as seen on the live connection (:meth:`connected` makes a
    fresh one per connection, so a peer whose state we dropped while offline is
    new to us again, whatever clock it announces).
    """

    def __init__(self, doc: Doc[Any], user: str) -> None:
        from pycrdt import Awareness

        self._doc = doc
        self.awareness = Awareness(doc)
        """Our own state (its periodic renewal keeps us present)."""
        self.send: Callable[[bytes], Any] | None = None
        """Sends one message on the live connection (``None`` while offline)."""
        self.on_change: Callable[[tuple[PeerPresence, ...]], None] = lambda _p: None
        """Called when another peer comes, goes, moves its cursor or writes."""
        self._room: Awareness | None = None
        self._others: tuple[PeerPresence, ...] = ()
        self._seen: set[int] = set()
        self.awareness.set_local_state(editor_state(user))
        self.awareness.observe(self._own_changed)

    @property
    def client_id(self) -> int:
        """Our awareness client id (the ``Doc``'s client id)."""
        return self.awareness.client_id

    def others(self) -> tuple[PeerPresence, ...]:
        """The other peers in the room (with a ``user``), as last seen."""
        return self._others

    def peers(self) -> int:
        """How many other editors (peers with a user name, not the agent) are in
        the room."""
        return sum(1 for p in self._others if p.kind != AGENT)

    def set_cursor(self, cursor: tuple[int, int] | None) -> None:
        """Publish our cursor: ``(line, UTF-16 character)``, or ``None``."""
        state = self.awareness.get_local_state() or {}
        if state.get("cursor") != cursor_json(cursor):
            self.awareness.set_local_state_field("cursor", cursor_json(cursor))

    def announce(self) -> None:
        """Send our own state (again) on the live connection."""
        from pycrdt import create_awareness_message

        if self.send is not None:
            update = self.awareness.encode_awareness_update([self.client_id])
            self.send(create_awareness_message(update))

    def connected(self) -> Awareness:
        """A fresh view of the room's peers for a new connection, and our state
        announced on it (:meth:`renew`). The caller runs its ``start`` (peers
        that stop renewing time out) for as long as the connection lives."""
        from pycrdt import Awareness

        self.forget_others()
        room = Awareness(self._doc)
        room.observe(self._room_changed)
        self._room = room
        self.renew()
        return room

    def renew(self) -> None:
        """Announce our state with a clock newer than any peer may know.

        Peers ignore a clock they have seen, and when our socket closed the
        server told them our state is null at our clock + 1 (:mod:`.presence`):
        our state is removed (its clock + 1, not announced) and set again (+ 2).
        """
        state = dict(self.awareness.get_local_state() or {})
        self.awareness.remove_awareness_states([self.client_id], "renew")
        self.awareness.set_local_state(state)

    def goodbye(self) -> None:
        """Tell the room we leave (our state becomes null)."""
        self.awareness.set_local_state(None)

    def received(self, message: bytes) -> None:
        """Apply an awareness message from the room."""
        from pycrdt import read_message

        if self._room is None:
            return
        try:
            self._room.apply_awareness_update(read_message(message[1:]), "remote")
        except Exception:  # a malformed update must not drop the connection
            logger.debug("unreadable awareness message", exc_info=True)

    def forget_others(self) -> None:
        """Drop every other peer's state (we are offline: we cannot know)."""
        self._room = None
        self._seen = set()
        self._show(())

    def _own_changed(self, topic: str, changes: tuple[dict[str, Any], Any]) -> None:
        if topic == "update" and changes[1] == "local":
            self.announce()

    def _room_changed(self, topic: str, changes: tuple[dict[str, Any], Any]) -> None:
        room = self._room
        if topic != "update" or room is None or changes[1] == "local":
            return  # "local": the room view's own placeholder state
        others = present_peers(room.states, self.client_id)
        present = {p.client for p in others}
        if changes[1] == "remote" and present - self._seen:
            self.announce()  # a newcomer (or a peer back) does not know us yet
        self._seen = present
        self._show(others)

    def _show(self, others: tuple[PeerPresence, ...]) -> None:
        if others != self._others:
            self._others = others
            self.on_change(others)


class PeerChannel(WebsocketChannel):
    """A channel that notices its socket closing and routes presence."""

    def __init__(self, websocket: Any, path: str, presence: Presence) -> None:
        import anyio

        super().__init__(websocket, path)
        self.presence = presence
        """Where awareness messages go."""
        self.closed = anyio.Event()
        """Set once a receive or a send failed: this connection is over."""

    async def recv(self) -> bytes:
        """The next message; awareness messages are applied on the way."""
        try:
            message = await super().recv()
        except BaseException:
            self.closed.set()
            raise
        if message[:1] == bytes([_AWARENESS]):
            self.presence.received(message)
        return message

    async def send(self, message: bytes) -> None:
        """Send one message; once the socket is gone, drop it quietly."""
        if self.closed.is_set():
            return
        try:
            await super().send(message)
        except Exception as exc:
            logger.debug("send on a closed connection to %s: %s", self.path, exc)
            self.closed.set()
