"""Open session documents join their shared room (``sync`` setting, issue 29).

With ``agentDoc.sync`` (or ``sync`` in the project's ``.agent-doc/config.toml``)
set to a ``ws://`` server, every open session document becomes a peer of the
room named by its ``agent_doc_session`` (:class:`agent_doc.share.peer.RoomPeer`).
The person's changes go out as Yjs edits (:class:`agent_doc.share.mirror.BufferMirror`
tells them from the server's own edits coming back); the room's changes reach
the buffer through :func:`agent_doc_lsp.live_edit.apply_live`, the path an
agent's write takes: minimal edits, after the person's pause, pinned to the
buffer's version and verified.

The peer's status is sent as the custom notification ``agentDoc/shareStatus``
``{uri, state, peers, label, detail, writing, presence, ownUndo}`` and shown as
a code lens at line 0 (``shared · 2 peers · agent writing``, ``offline``,
``refused``); ``presence`` lists the other peers and their cursors
(:mod:`.share_presence`). The person's cursor comes in as ``agentDoc/cursor``.
``ownUndo`` (true once the document synced with its room) tells the editor to
map its undo keys to ``agentDoc.undo`` / ``agentDoc.redo`` (:mod:`.share_undo`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent_doc.cycle.turn import PreparedTurn
from agent_doc.errors import AgentDocError
from agent_doc.share.documents import session_id
from agent_doc.share.mirror import BufferMirror
from agent_doc.share.mirror import room_for
from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer
from agent_doc.share.room_link import RoomTarget
from agent_doc.store.docfile import read_document
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features import served_save
from agent_doc_lsp.features import share_presence
from agent_doc_lsp.features import writes
from agent_doc_lsp.live_edit import apply_live
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

SHARE_STATUS = "agentDoc/shareStatus"
"""Custom notification: one document's room status."""
LABEL = "agent-doc share"
"""The label of the workspace edits that bring a buffer to its room."""


@dataclass
class Joined:
    """One open document in its room."""

    mirror: BufferMirror
    """The buffer ↔ room bookkeeping (holds the peer)."""
    task: asyncio.Task[None]
    """Runs the peer (connect, sync, reconnect)."""
    again: bool = False
    """The room changed while the buffer was being brought to it."""
    bringing: asyncio.Task[None] | None = None
    """The task bringing the buffer to the room's text, while it runs."""
    label: str = ""
    """The status label last shown (the lenses are refreshed when it changes)."""
    hurry: bool = False
    """The next bringing is the person's undo: it does not wait for a pause."""


@dataclass
class ShareState:
    """Per-server state of this feature."""

    joined: dict[str, Joined] = field(default_factory=dict)
    """URI → its room membership."""
    listening: bool = False
    """The change listener is installed on the workspace."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, ShareState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> ShareState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, ShareState())


def join(ls: AgentDocLanguageServer, uri: str) -> None:
    """Join the room of the open document ``uri`` if it has one."""
    state = state_of(ls)
    buffer = ls.buffers.get(uri)
    if uri in state.joined or buffer is None or buffer.path is None:
        return
    options = ls.options
    room = room_for(buffer.path, buffer.text, options.sync, options.sync_token_file)
    if room is None:
        return
    _listen(ls)
    peer = RoomPeer(
        room.url,
        room.token,
        on_remote=lambda _text: bring(ls, uri),
        on_status=lambda status: show_status(ls, uri, status),
        seed=lambda: mirror.seed(_text_of(ls, uri)),
        user=options.sync_user_name,
    )
    mirror = BufferMirror(peer, _joined_from(buffer.path, buffer.text))
    task = asyncio.get_running_loop().create_task(peer.run())
    state.joined[uri] = Joined(mirror, task)
    show_status(ls, uri, peer.status)


def room_target(ls: AgentDocLanguageServer, uri: str) -> RoomTarget | None:
    """Where the open document ``uri``'s room is (``None``: not shared)."""
    buffer = ls.buffers.get(uri)
    if uri not in state_of(ls).joined or buffer is None or buffer.path is None:
        return None
    options = ls.options
    room = room_for(buffer.path, buffer.text, options.sync, options.sync_token_file)
    return None if room is None else RoomTarget(room.url, room.token())


def shared_doc(ls: AgentDocLanguageServer, uri: str) -> Any | None:
    """The room's Yjs document of the open document ``uri`` once it synced
    (``None``: not shared, or not joined yet)."""
    joined = state_of(ls).joined.get(uri)
    if joined is None or not joined.mirror.peer.synced.is_set():
        return None
    return joined.mirror.peer.doc


async def prepare_shared_turn(
    ls: AgentDocLanguageServer, uri: str, path: Path, link: Any
) -> PreparedTurn | None:
    """The turn of the open document ``uri``: a shared one is diffed against
    the room's snapshot (this host's follows it), with this host's own agent
    session (never the frontmatter's ``resume``)."""
    from agent_doc.cycle.room_turn import follow_room
    from agent_doc.cycle.room_turn import host_session
    from agent_doc.cycle.turn import prepare_turn
    from agent_doc.share.turn_state import room_snapshot

    doc = shared_doc(ls, uri)
    if doc is None:
        return await asyncio.to_thread(prepare_turn, path, link)
    seen = room_snapshot(doc)

    def prepare() -> PreparedTurn | None:
        if seen is not None:
            follow_room(path, seen)
        return prepare_turn(path, link, resume=host_session(path))

    return await asyncio.to_thread(prepare)


def landed_on_disk_in_room(
    room: RoomTarget, path: Path, content_ours: str, session_id: str | None
) -> None:
    """An editor's answer to a shared document written to disk (its buffer
    closed, or none open): the room's snapshot becomes it and the agent's
    session stays on this host (a file this host's serve shares: once serve
    merged it into the room); a room that cannot be reached is logged."""
    from agent_doc.cycle.room_turn import keep_host_session
    from agent_doc.share.remote import record_room_snapshot
    from agent_doc.share.served import served_room

    keep_host_session(path, session_id)
    try:
        served = served_room(path)  # a file serve projects: once the room has it
        same = served is not None and served.target.url == room.url
        projected = path if same else None
        if not record_room_snapshot(room, content_ours, projected=projected):
            logger.warning("the room's snapshot was not moved: serve was slow")
    except AgentDocError as exc:
        logger.warning("the room's snapshot was not moved: %s", exc)


async def landed_in_room(
    doc: Any, path: Path, content_ours: str, session_id: str | None
) -> None:
    """An answer landed in a shared document's buffer: the room's snapshot
    becomes it (every host diffs against it) and the agent's session is kept
    on this host."""
    from agent_doc.cycle.room_turn import keep_host_session
    from agent_doc.share.turn_state import record_landing

    with doc.transaction():
        record_landing(doc, content_ours, None)
    await asyncio.to_thread(keep_host_session, path, session_id)


@contextlib.asynccontextmanager
async def room_turn(
    ls: AgentDocLanguageServer, uri: str, path: Path, command: str, hint: str
) -> AsyncIterator[RoomTarget | None]:
    """A shared document's room-wide turn (every host and editor of the
    room), held for the block; refused (``TurnRunning`` ending with
    ``hint``) as the local turn is. A document not joined that this host's
    ``serve`` shares holds its room's turn the same way; nothing for a
    document not shared. The block gets the room (``None``: not shared)."""
    from agent_doc.share.room_lease import hold_room_turn
    from agent_doc.share.served import served_room

    target = room_target(ls, uri)
    hold: contextlib.AbstractContextManager[Any]
    if target is not None:
        hold = hold_room_turn(target, str(path), command, hint=hint)
    else:
        served = await asyncio.to_thread(served_room, path)
        if served is None:
            yield None
            return
        hold = served.hold_turn(command, hint=hint)
        target = served.target
    held = contextlib.ExitStack()
    await asyncio.to_thread(held.enter_context, hold)
    try:
        yield target
    finally:
        await asyncio.to_thread(held.close)


def _joined_from(path: Path, text: str) -> str:
    """The text the room is taken to hold where the buffer ``text`` departs
    from it: the saved file, when it is the same session document.

    A buffer can join with unsaved changes (``sync`` set while it was open):
    they are the person's, merged onto the room's text on the first sync —
    taken as the room's, the room's newer version would replace them.
    """
    try:
        saved = read_document(path).text
    except AgentDocError:
        return text
    return saved if session_id(saved) == session_id(text) else text


def join_once_a_session(ls: AgentDocLanguageServer, uri: str) -> None:
    """On save: join the room of ``uri`` if it has become a session document
    since it was opened (its saved frontmatter now has an ``agent_doc_session``)."""
    if uri in state_of(ls).joined:
        return
    head = ls.buffers.head(uri)  # the frontmatter only: a plain file stays cheap
    if head is not None and session_id(head.text) is not None:
        join(ls, uri)


def leave(ls: AgentDocLanguageServer, uri: str) -> None:
    """Leave the room of ``uri`` (closed, or the server shuts down)."""
    joined = state_of(ls).joined.pop(uri, None)
    if joined is not None:
        joined.mirror.peer.close()
        if joined.bringing is not None:
            joined.bringing.cancel()


def _text_of(ls: AgentDocLanguageServer, uri: str) -> str:
    buffer = ls.buffers.get(uri)
    return buffer.text if buffer is not None else ""


def _listen(ls: AgentDocLanguageServer) -> None:
    """Record every single content change of joined documents."""
    state = state_of(ls)
    workspace = ls.workspace
    if state.listening or not isinstance(workspace, FastWorkspace):
        return
    state.listening = True

    def changed(
        ident: types.VersionedTextDocumentIdentifier, document: FastTextDocument
    ) -> None:
        joined = state.joined.get(ident.uri)
        if joined is not None:  # only a shared document pays for its text
            joined.mirror.changed(document.source)

    workspace.change_listeners.append(changed)


def did_change(ls: AgentDocLanguageServer, uri: str) -> None:
    """Send the person's changes; catch up if the buffer is behind the room."""
    joined = state_of(ls).joined.get(uri)
    if joined is None:
        return
    text = _text_of(ls, uri)
    joined.mirror.flush(text)
    if joined.mirror.behind(text) and joined.bringing is None:
        bring(ls, uri)


def bring(ls: AgentDocLanguageServer, uri: str) -> None:
    """Bring the buffer of ``uri`` to its room's text (soon, in a task)."""
    joined = state_of(ls).joined.get(uri)
    if joined is None:
        return
    joined.again = True
    if joined.bringing is None:
        joined.bringing = asyncio.get_running_loop().create_task(
            _bring(ls, uri, joined)
        )


async def _bring(ls: AgentDocLanguageServer, uri: str, joined: Joined) -> None:
    mirror = joined.mirror
    try:
        while joined.again and uri in ls.buffers:
            joined.again = False
            if not mirror.behind(_text_of(ls, uri)):
                continue
            mirror.in_flight = True
            pause, joined.hurry = not joined.hurry, False
            try:
                tracker = writes.state_of(ls).tracker
                await apply_live(
                    ls, tracker, uri, mirror.plan, label=LABEL, pause=pause
                )
            except AgentDocError as exc:  # retried on the next change
                logger.warning("%s: %s", uri, exc)
            finally:
                mirror.in_flight = False
    finally:
        joined.bringing = None


def show_status(ls: AgentDocLanguageServer, uri: str, status: PeerStatus) -> None:
    """Notify the status of ``uri``'s room and refresh the lenses."""
    joined = state_of(ls).joined.get(uri)
    payload: dict[str, Any] = {
        "uri": uri,
        "state": status.state,
        "peers": status.peers,
        "label": status.label(),
        "detail": status.detail,
        "writing": status.writing(),
        "presence": share_presence.presence_json(ls, uri, status.present),
        "ownUndo": joined is not None and joined.mirror.peer.synced.is_set(),
    }
    ls.protocol.notify(SHARE_STATUS, payload)
    if status.state == "refused":
        logger.warning("%s: room refused: %s", uri, status.detail)
    if joined is not None:
        if joined.label == payload["label"]:
            return  # a cursor moved: no new lens
        joined.label = payload["label"]
    if ls.options.code_lens:
        agent_status.refresh_lenses(ls)


def cursor_moved(ls: AgentDocLanguageServer, params: Any) -> None:
    """``agentDoc/cursor``: publish the person's cursor in the document's room."""
    found = share_presence.cursor_of(params)
    if found is None:
        logger.debug("%s without {uri, position}: %r", share_presence.CURSOR, params)
        return
    uri, line, character = found
    joined = state_of(ls).joined.get(uri)
    if joined is not None and uri in ls.buffers:
        utf16 = share_presence.utf16_character(ls, uri, line, character)
        joined.mirror.peer.set_cursor((line, utf16))


def status_lens(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """``shared · N peers`` / ``offline`` at line 0 of a joined document."""
    joined = state_of(ls).joined.get(params.text_document.uri)
    if joined is None or not ls.options.code_lens:
        return []
    top = types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    title = joined.mirror.peer.status.label()
    return [types.CodeLens(range=top, command=types.Command(title=title, command=""))]


def _join_open(ls: AgentDocLanguageServer) -> None:
    for uri in list(ls.buffers):
        join(ls, uri)


def _leave_all(ls: AgentDocLanguageServer) -> None:
    for uri in list(state_of(ls).joined):
        leave(ls, uri)


async def answer_in_buffer(
    ls: AgentDocLanguageServer, uri: str, path: Path, ours: str
) -> bool:
    """A handed-off answer landed in the buffer ``uri``: joined, the room has
    it from the buffer; not joined, a served document's room snapshot waits
    for the save (``True``: :mod:`.served_save`)."""
    if shared_doc(ls, uri) is not None:
        return False
    return await served_save.until_saved_if_served(ls, uri, path, ours)


def register(server: AgentDocLanguageServer) -> None:
    """Subscribe to the document and lifecycle hooks."""
    if answer_in_buffer not in writes.ANSWER_IN_BUFFER:
        writes.ANSWER_IN_BUFFER.append(answer_in_buffer)
    server.hooks.did_open.append(join)
    server.hooks.did_change.append(did_change)
    server.hooks.did_save.append(join_once_a_session)
    server.hooks.did_close.append(leave)
    server.hooks.options_changed.append(_join_open)
    server.hooks.shutdown.append(_leave_all)
    agent_status.add_lens_provider(server, status_lens)
    server.feature(share_presence.CURSOR)(cursor_moved)
