"""An editor buffer mirrored into its room: which changes go out, what comes in.

The language server keeps one :class:`BufferMirror` per open session document
that has a room (:func:`room_for`). Every content change the editor reports is
recorded (:meth:`BufferMirror.changed`); at the end of a notification, and
before every edit planned into the buffer, :meth:`BufferMirror.flush` sends the
person's changes to the room as Yjs edits. A change that produced the text of
an edit the server itself sent to the buffer (:meth:`BufferMirror.target`) is
that edit coming back, already in the room: it is not sent again. Changes
after it in the same notification are the person's, and go out on top of it.
An edit of several regions may come back in pieces, one notification each
(:func:`partly_applied`): each piece is recognised the same way.

The room's text is the truth: the buffer is brought to :meth:`BufferMirror.target`
(the peer's text, which holds every local change already) with the same
minimal, version-checked edits as an agent's write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from agent_doc.document.textedit import edit_ops
from agent_doc.errors import ShareError
from agent_doc.share.access import read_token_file
from agent_doc.share.access import token_path
from agent_doc.share.documents import session_id
from agent_doc.share.peer import RoomPeer
from agent_doc.store.config import load_project_config
from agent_doc.store.state import find_project_root
from agent_doc.write.live import LivePlan
from agent_doc.write.live import TextChange
from agent_doc.write.live import apply_changes
from agent_doc.write.live import plan_from_text

SYNC_KEY = "sync"
"""Project config key (``.agent-doc/config.toml``): the sync server's URL."""
TOKEN_FILE_KEY = "sync_token_file"
"""Project config key: the token file (default ``.agent-doc/share/token``)."""


@dataclass(frozen=True, slots=True)
class RoomSetting:
    """Where an open document's room is and how to get in."""

    url: str
    """``ws://host:port/<session id>``."""
    token_file: Path
    """The bearer token's file (read on every connection attempt)."""

    def token(self) -> str | None:
        """The token, or ``None`` when its file does not exist."""
        if not self.token_file.exists():
            return None
        return read_token_file(self.token_file)


def room_for(
    path: Path, text: str, sync: str = "", token_file: str = ""
) -> RoomSetting | None:
    """The room of the document ``path`` holding ``text``, or ``None``.

    ``sync`` and ``token_file`` are the editor's settings; when empty, the
    project's ``sync`` and ``sync_token_file`` apply. Only a session document
    (``agent_doc_session``) has a room. Raises :class:`ShareError` for a URL
    that is not ``ws://`` / ``wss://`` or that carries a query string.
    """
    session = session_id(text)
    if session is None:
        return None
    root = find_project_root(path.parent)
    raw = load_project_config(root).raw if root is not None else {}
    url = sync or str(raw.get(SYNC_KEY) or "")
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.netloc or parts.query:
        raise ShareError(f"sync must be a ws:// or wss:// server URL, got {url!r}")
    chosen = token_file or str(raw.get(TOKEN_FILE_KEY) or "")
    if chosen:
        file = Path(chosen).expanduser()
        if not file.is_absolute() and root is not None:
            file = root / file
    elif root is not None:
        file = token_path(root)
    else:
        raise ShareError(f"{path}: no token file (set syncTokenFile)")
    return RoomSetting(url.rstrip("/") + "/" + session, file)


class BufferMirror:
    """Keeps one buffer and its room peer in step (see the module docstring)."""

    def __init__(self, peer: RoomPeer, text: str) -> None:
        self.peer = peer
        """The document's room peer."""
        self.seen = text
        """The buffer text whose changes the room has (before the first
        sync: the text the buffer was opened with)."""
        self.in_flight = False
        """An edit of the buffer toward the room's text is under way."""
        self._expected: list[str] = []
        self._texts: list[str] = []

    def changed(self, text: str) -> None:
        """One content change was applied to the buffer; ``text`` is the result."""
        self._texts.append(text)

    def seed(self, text: str) -> str:
        """The buffer's text goes into an empty room (on the first sync)."""
        self.seen = text
        return text

    def flush(self, buffer: str) -> int:
        """Send the person's changes up to ``buffer`` (the buffer's text now).

        Returns the number of regions sent (0 before the first sync: they
        are sent, merged, once the room's text is known).
        """
        base = self.seen
        for text in self._texts:
            if text in self._expected:
                base = text  # our own edit, back from the editor
        self._texts.clear()
        if not self.in_flight:
            self._expected.clear()
        if not self.peer.synced.is_set():
            return 0
        self.seen = buffer
        return self.peer.apply_local(base, buffer)

    def undo(self, buffer: str, *, redo: bool = False) -> int | None:
        """Undo (or redo) the person's last step in the room, their text only.

        ``buffer`` is the buffer's text now: its changes not sent yet are
        sent first, so they are the step undone. The buffer is then behind
        the room (:meth:`behind`). Returns where the step was (the offset of
        its first change in the room's new text: the cursor goes there, as
        after an editor's own undo), or ``None`` when there was nothing to
        undo (or redo).
        """
        self.flush(buffer)
        before = self.peer.current()
        if not (self.peer.redo() if redo else self.peer.undo()):
            return None
        ops = edit_ops(before, self.peer.current())
        return ops[0][0] if ops else 0

    def target(self, buffer: str) -> str:
        """What the buffer must become: the room's text (local changes flushed).

        The text is remembered, so its return through ``didChange`` is known
        as the server's own edit.
        """
        self.flush(buffer)
        text = self.peer.current()
        self._expected.append(text)
        return text

    def plan(self, buffer: str) -> LivePlan:
        """The edit bringing ``buffer`` to :meth:`target`: the smallest edits
        by character (:func:`~agent_doc.write.live.minimal_changes`), so lines
        added next to the line being typed in never replace that line."""
        target = self.target(buffer)
        plan = plan_from_text(buffer, target, target)
        self._expected.extend(partly_applied(buffer, plan.changes))
        return plan

    def behind(self, buffer: str) -> bool:
        """Whether the buffer lacks something the room has."""
        return self.peer.synced.is_set() and self.peer.current() != buffer


PARTIAL_LIMIT = 16
"""Edits with more regions than this are not followed region by region."""


def partly_applied(text: str, changes: tuple[TextChange, ...]) -> list[str]:
    """The texts an editor passes through while it applies ``changes`` one by
    one, last first (Neovim, Emacs) or first first.

    An editor may report them in separate ``didChange`` notifications (Neovim
    sends the first change at once when it was quiet, the rest after its
    debounce): none of them is the person's typing.
    """
    if not 1 < len(changes) <= PARTIAL_LIMIT:
        return []
    texts = []
    for k in range(1, len(changes)):
        texts.append(apply_changes(text, changes[len(changes) - k :]))
        texts.append(apply_changes(text, changes[:k]))
    return texts


Seeder = Callable[[], str]
"""Returns the buffer's text for an empty room."""
