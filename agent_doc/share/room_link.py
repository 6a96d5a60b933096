"""One agent-side connection to a room: join, read, replace the text, leave.

:class:`RoomLink` is what ``write --room``, ``patch --room`` and ``run --room``
hold while they work on a room (:mod:`agent_doc.share.remote`,
:mod:`agent_doc.share.room_run`). It joins as a Yjs peer through
:func:`~agent_doc.share.room_connect.open_room` with a small client
id (below :data:`AGENT_ID_LIMIT`: on a tie with an editor's concurrent insert
the agent's text comes first, as in a local merge), waits for the first sync,
and — when it writes — publishes the "agent writing" awareness state until it
leaves, when the state is set to null (the editors stop showing it at once).
Connection failures become one clear :class:`~agent_doc.errors.ShareError`
(:func:`~agent_doc.share.room_connect.room_failure`).
"""

from __future__ import annotations

import secrets
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.share.channel import WebsocketChannel
from agent_doc.share.presence_state import agent_state
from agent_doc.share.room_connect import TIMEOUT
from agent_doc.share.room_connect import open_room
from agent_doc.share.textedit import apply_text_change
from agent_doc.share.turn_state import record_landing

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from types import TracebackType


AGENT_ID_LIMIT = 1024
"""Writers take a random client id below this (editors' ids are 32-bit or more)."""


@dataclass(frozen=True)
class RoomTarget:
    """Where a remote write goes."""

    url: str
    """``ws://host:port/<uuid>`` (or ``wss://``)."""
    token: str | None
    """The bearer token (``None`` for a server run with ``--no-token``)."""


class RoomLink:
    """An open connection to one room (``async with RoomLink(target): …``)."""

    def __init__(
        self, target: RoomTarget, *, writing: bool = True, doc: Any = None
    ) -> None:
        """``doc``: the Yjs document of an earlier link to the room, to join
        again with (the room then receives what it missed, once)."""
        from pycrdt import Doc
        from pycrdt import Text

        self.target = target
        self.writing = writing
        """Publish "agent writing" while joined (a plain read does not)."""
        if doc is None:
            doc = Doc(client_id=1 + secrets.randbelow(AGENT_ID_LIMIT - 1))
        self.doc: Doc[Any] = doc
        self.text = self.doc.get(TEXT_KEY, type=Text)
        self._stack = AsyncExitStack()
        self._channel: WebsocketChannel | None = None
        self._awareness: Any = None

    async def __aenter__(self) -> RoomLink:
        """Connect, sync (bounded by :data:`TIMEOUT`) and say "agent writing"."""
        try:
            await self._join()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def _join(self) -> None:
        from pycrdt import Awareness

        target = self.target
        joined = open_room(target.url, target.token, self.doc, WebsocketChannel)
        self._channel = await self._stack.enter_async_context(joined)
        if self.writing:
            self._awareness = Awareness(self.doc)
            await self._publish(agent_state())

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Say "left" (null state), then disconnect."""
        import anyio

        try:
            if self._awareness is not None:
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await self._publish(None)
        finally:  # not in a cancel scope: it would nest inside the task groups
            await self._stack.aclose()

    def current(self) -> str:
        """The room's text as this peer holds it now."""
        return str(self.text)

    def change_to(self, new: str, landing: tuple[str, str | None] | None = None) -> int:
        """Turn the room's text into ``new`` (the changed regions, one transaction).

        ``landing`` (``(snapshot, answer id)``) is recorded in the same
        transaction (:func:`~agent_doc.share.turn_state.record_landing`): the
        room never holds an answer without its snapshot and id. Returns the
        number of regions changed; the update is sent in the background
        (:meth:`settled` waits for the room to apply it).
        """
        if landing is None:
            return apply_text_change(self.doc, self.text, new)
        with self.doc.transaction():
            edits = apply_text_change(self.doc, self.text, new)
            record_landing(self.doc, *landing)
        return edits

    async def settled(self, sent_before: int | None = None) -> None:
        """Wait (bounded) until the room applied what was sent after
        ``sent_before`` (``None``: what was sent so far)."""
        import anyio
        from pycrdt import create_sync_message

        assert self._channel is not None
        with anyio.fail_after(TIMEOUT):
            await self._channel.acknowledged(create_sync_message(self.doc), sent_before)

    @property
    def updates_sent(self) -> int:
        """How many updates this link has sent (a mark for :meth:`settled`)."""
        return 0 if self._channel is None else self._channel.updates_sent

    async def _publish(self, state: dict[str, Any] | None) -> None:
        """Set the awareness state and send it to the room (``None``: left)."""
        from pycrdt import create_awareness_message

        assert self._channel is not None
        self._awareness.set_local_state(state)
        update = self._awareness.encode_awareness_update([self._awareness.client_id])
        try:
            await self._channel.send(create_awareness_message(update))
        except Exception:  # the connection is gone: the server clears our state
            if state is not None:
                raise
