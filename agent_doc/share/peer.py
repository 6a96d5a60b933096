"""A long-lived Yjs peer of one shared room (an editor's buffer joins through it).

:class:`RoomPeer` keeps one ``pycrdt.Doc`` for the whole life of an open
document and (re)connects it to ``ws://host:port/<session id>`` the way every
peer joins (:func:`~agent_doc.share.room_connect.open_room`: the bearer token in
the ``Authorization`` header, a ``pycrdt.Provider``), here over a
:class:`~agent_doc.share.peer_link.PeerChannel`; when the socket dies the
peer goes ``offline`` and retries with exponential backoff (:data:`BACKOFF`).
Because the ``Doc`` (and its history) survives, edits made while offline merge
on reconnect through the ordinary sync exchange: the buffer is never inserted
into the room again, which would duplicate the text for every peer.

The room is the truth. On the first sync a room with content wins: the
consumer is handed its text (``on_remote``) and brings the buffer to it;
only an empty room is seeded from the buffer (``seed()``).

Local edits enter with :meth:`RoomPeer.apply_local` (old text → new text, as the
smallest Yjs edit in one transaction; when remote changes arrived meanwhile the
local change is rebased onto them character by character, :func:`rebase`).
They carry the person's origin: :meth:`RoomPeer.undo` / :meth:`RoomPeer.redo`
undo and redo them, and only them (:mod:`agent_doc.share.undo`).
Remote changes are reported, coalesced, to ``on_remote(text)``; the consumer
computes its own minimal edit. The status (:class:`PeerStatus`) is
``connecting``, ``shared`` with the number of other peers, ``offline``
(retrying) or ``refused`` (a wrong token or an unknown room: retried only at
the slowest pace, so a bad token never makes a retry storm).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.share.peer_link import PeerChannel
from agent_doc.share.peer_link import Presence
from agent_doc.share.presence_state import PeerPresence
from agent_doc.share.presence_state import default_name
from agent_doc.share.presence_state import status_words
from agent_doc.share.room_connect import open_room
from agent_doc.share.room_connect import refusal
from agent_doc.share.textedit import apply_text_change
from agent_doc.share.textedit import rebase
from agent_doc.share.undo import PERSON
from agent_doc.share.undo import OwnUndo

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pycrdt import Doc

logger = logging.getLogger(__name__)

BACKOFF = (0.5, 10.0)
"""Seconds before the first retry, and the most a retry ever waits."""
PING_S = 5.0
"""Websocket keep-alive: a silent, half-dead connection is noticed this fast."""


@dataclass(frozen=True, slots=True)
class PeerStatus:
    """Where a peer stands."""

    state: str
    """``connecting``, ``shared``, ``offline`` or ``refused``."""
    peers: int = 0
    """Other peers present (while ``shared``)."""
    detail: str = ""
    """Why it is offline or refused."""
    present: tuple[PeerPresence, ...] = ()
    """The other peers (editors and the agent's writer), while ``shared``."""

    def label(self) -> str:
        """The status line text: ``shared · 3 peers · agent writing``, ``offline``, …"""
        if self.state == "shared":
            if not self.present:
                return f"shared · {self.peers} peer{'' if self.peers == 1 else 's'}"
            return f"shared · {status_words(self.present)}"
        return self.state

    def writing(self) -> bool:
        """Whether a peer (the agent) is writing into the document now."""
        return any(p.writing for p in self.present)


def failure_status(exc: BaseException) -> PeerStatus:
    """The status after a failed connection (task groups may wrap the error)."""
    refused = refusal(exc)
    if refused is not None:
        return PeerStatus("refused", detail=refused)
    while inner := getattr(exc, "exceptions", None):
        exc = inner[0]
    return PeerStatus("offline", detail=str(exc) or type(exc).__name__)


TokenSource = Callable[[], "str | None"]
"""Returns the bearer token (read again on every connection attempt)."""


class RoomPeer:
    """One document's peer in its room, reconnecting until :meth:`close`."""

    def __init__(
        self,
        url: str,
        token: TokenSource,
        *,
        on_remote: Callable[[str], None],
        on_status: Callable[[PeerStatus], None] = lambda _s: None,
        seed: Callable[[], str] = lambda: "",
        user: str = "",
        backoff: tuple[float, float] = BACKOFF,
    ) -> None:
        import anyio
        from pycrdt import Doc
        from pycrdt import Text

        self.url = url
        """``ws://host:port/<session id>``."""
        self.doc: Doc[Any] = Doc()
        """The peer's document: kept across connections (offline edits merge)."""
        self.text = self.doc.get(TEXT_KEY, type=Text)
        """The shared text."""
        self.history = OwnUndo(self.doc, self.text)
        """The person's own undo history (their changes only)."""
        self.presence = Presence(self.doc, user or default_name())
        """Our awareness state and the peers we see."""
        self.status = PeerStatus("connecting")
        """The current status."""
        self.synced = anyio.Event()
        """Set after the first sync with the room."""
        self.on_remote = on_remote
        self.on_status = on_status
        self._token = token
        self._backoff = backoff
        self._local = False
        self._remote_pending = False
        self._changed = anyio.Event()
        self._stop = anyio.Event()
        self._seed = seed
        # the text only: the room's turn (its maps) changes under it too
        self.text.observe(self._observed)
        self.presence.on_change = self._presence_changed

    # -- the text ---------------------------------------------------------
    def current(self) -> str:
        """The document's text as this peer has it now."""
        return str(self.text)

    def apply_local(self, old: str, new: str, *, undoable: bool = True) -> int:
        """Apply the local change ``old`` → ``new`` as one transaction.

        When the peer's text is no longer ``old`` (remote changes arrived that
        the buffer does not have yet), the change is rebased onto them
        (:func:`~agent_doc.share.textedit.rebase`). An ``undoable`` change is
        the person's: :meth:`undo` can take it back.
        Returns the number of edited regions.
        """
        if old == new:
            return 0
        target = rebase(old, new, self.current())
        self._local = True
        try:
            origin = PERSON if undoable else None
            return apply_text_change(self.doc, self.text, target, origin)
        finally:
            self._local = False

    def undo(self) -> bool:
        """Undo the person's last step (their text only); ``False``: nothing to undo."""
        return self._local_change(self.history.undo)

    def redo(self) -> bool:
        """Redo the person's last undone step; ``False``: nothing to redo."""
        return self._local_change(self.history.redo)

    def _local_change(self, change: Callable[[], bool]) -> bool:
        self._local = True
        try:
            return change()
        finally:
            self._local = False

    def _observed(self, _event: Any) -> None:
        if not self._local:
            self._remote_pending = True
            self._changed.set()

    # -- status -----------------------------------------------------------
    def _set_status(self, status: PeerStatus) -> None:
        if status != self.status:
            if status.label() != self.status.label():  # not every cursor move
                logger.info("%s: %s %s", self.url, status.label(), status.detail)
            self.status = status
            self.on_status(status)

    def _shared(self) -> PeerStatus:
        return PeerStatus(
            "shared", self.presence.peers(), present=self.presence.others()
        )

    def _presence_changed(self, _others: tuple[PeerPresence, ...]) -> None:
        if self.status.state == "shared":
            self._set_status(self._shared())

    def set_cursor(self, cursor: tuple[int, int] | None) -> None:
        """Publish the person's cursor: ``(line, UTF-16 character)`` or ``None``."""
        self.presence.set_cursor(cursor)

    # -- running ----------------------------------------------------------
    async def run(self) -> None:
        """Connect, sync and stay connected (reconnecting) until :meth:`close`."""
        import anyio

        async with anyio.create_task_group() as tg:
            tg.start_soon(self._report_remote)
            await tg.start(self.presence.awareness.start)
            tg.start_soon(self._connect_forever)
            await self._stop.wait()
            tg.cancel_scope.cancel()

    def close(self) -> None:
        """Stop the peer (its :meth:`run` returns)."""
        self._stop.set()

    async def _report_remote(self) -> None:
        import anyio

        while True:
            await self._changed.wait()
            self._changed = anyio.Event()
            if self._remote_pending:
                self._remote_pending = False
                try:
                    self.on_remote(self.current())
                except Exception:
                    logger.exception("%s: the remote change handler failed", self.url)

    async def _connect_forever(self) -> None:
        import anyio

        first, longest = self._backoff
        delay = first
        while True:
            status = PeerStatus("offline", detail="the connection closed")
            try:
                await self._connection()
                delay = first
            except Exception as exc:  # refused, unreachable, timed out, dropped
                status = failure_status(exc)
                if status.state == "refused":
                    delay = longest
            self._set_status(status)
            self.presence.forget_others()
            await anyio.sleep(delay)
            delay = min(delay * 2, longest)

    async def _connection(self) -> None:
        """One connection: joined, shared until its socket closes."""
        import anyio

        async with anyio.create_task_group() as tg:

            def opened(channel: PeerChannel) -> None:
                self.presence.send = lambda msg: tg.start_soon(channel.send, msg)
                tg.start_soon(self.presence.connected().start)  # peers time out

            try:
                async with open_room(
                    self.url,
                    self._token(),
                    self.doc,
                    self._channel,
                    keepalive_s=PING_S,
                    log=logger,
                    on_open=opened,
                ) as channel:
                    if not self.synced.is_set():
                        self._first_sync()
                    self._set_status(self._shared())
                    await channel.closed.wait()
            finally:
                self.presence.send = None
                tg.cancel_scope.cancel()

    def _channel(self, websocket: Any, path: str) -> PeerChannel:
        return PeerChannel(websocket, path, self.presence)

    def _first_sync(self) -> None:
        """Seed an empty room from the buffer; a full room is adopted."""
        if not self.current():
            self.apply_local("", self._seed(), undoable=False)
        self.synced.set()
        self._remote_pending = True  # the consumer adopts the room's text
        self._changed.set()
