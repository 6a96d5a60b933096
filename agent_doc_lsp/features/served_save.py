"""An answer in the buffer of a served document that has not joined its room.

This host's ``agent-doc serve`` shares the document, but the editor does not
sync it (no ``sync`` setting): an answer that lands in its buffer reaches the
file — and so the room, where serve merges outside edits — only when the
person saves. Until then the room's snapshot cannot move (it never runs
ahead of the room's text), so the answer's ``content_ours`` waits here and
is recorded as the room's snapshot after the ``didSave`` that writes it (a
``run --room`` from any host then has nothing to send). A buffer closed
without saving never put the answer in the file: nothing is recorded.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import AgentDocError
from agent_doc.share.room_link import RoomTarget
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unsaved:
    """An answer in a buffer whose room snapshot waits for the save."""

    room: RoomTarget
    path: Path
    content_ours: str


_WAITING: weakref.WeakKeyDictionary[AgentDocLanguageServer, dict[str, Unsaved]] = (
    weakref.WeakKeyDictionary()
)


def _waiting(ls: AgentDocLanguageServer) -> dict[str, Unsaved]:
    return _WAITING.setdefault(ls, {})


def until_saved(
    ls: AgentDocLanguageServer, uri: str, room: RoomTarget, path: Path, ours: str
) -> None:
    """Record ``ours`` as ``room``'s snapshot once ``uri`` is saved (a newer
    answer in the same buffer replaces it)."""
    _waiting(ls)[uri] = Unsaved(room, path, ours)


async def until_saved_if_served(
    ls: AgentDocLanguageServer, uri: str, path: Path, ours: str
) -> bool:
    """An answer (``ours``) landed in the buffer ``uri``, which has not joined
    a room: when this host's serve shares ``path`` its room's snapshot waits
    for the save (``True``); otherwise there is nothing to do."""
    from agent_doc.share.served import served_room

    served = await asyncio.to_thread(served_room, path)
    if served is None:
        return False
    until_saved(ls, uri, served.target, path, ours)
    return True


def record_now(unsaved: Unsaved) -> bool:
    """The room's snapshot becomes the saved answer (once serve merged the
    file into the room); ``False``, logged, when it could not be moved."""
    from agent_doc.share.remote import record_room_snapshot

    try:
        if record_room_snapshot(
            unsaved.room, unsaved.content_ours, projected=unsaved.path
        ):
            return True
        logger.warning("the room's snapshot was not moved: serve was slow")
    except AgentDocError as exc:
        logger.warning("the room's snapshot was not moved: %s", exc)
    return False


async def saved(ls: AgentDocLanguageServer, uri: str) -> None:
    """After ``didSave``: move the room's snapshot to an answer waiting for it."""
    unsaved = _waiting(ls).pop(uri, None)
    if unsaved is not None:
        await asyncio.to_thread(record_now, unsaved)


async def closed(ls: AgentDocLanguageServer, uri: str) -> None:
    """After ``didClose``: an unsaved answer never reached the file."""
    _waiting(ls).pop(uri, None)


def register(server: AgentDocLanguageServer) -> None:
    """Subscribe to ``didSave`` and ``didClose``."""
    server.hooks.did_save.append(saved)
    server.hooks.did_close.append(closed)
