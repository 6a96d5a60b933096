"""The awareness (presence) states peers publish in a room, and reading them back.

Every peer of a room publishes one JSON state under its client id, in the
y-protocols awareness shape (a ``null`` state: the peer left), so Yjs's own
JavaScript clients (``y-websocket``) see and are seen the same way:

- an editor: ``{"user": {"name": "ann@laptop", "kind": "editor"},
  "cursor": {"line": 12, "character": 4} | null}``; ``character`` counts UTF-16
  code units (LSP's default and JavaScript's string index), so every editor
  reads it the same whatever position encoding it negotiated;
- the agent's remote writer (``write/patch --room``): ``{"user": {"name":
  "agent", "kind": "agent"}, "writing": true}`` while its transaction is
  prepared and applied; ``null`` once it is done.

:func:`present_peers` reads the other peers' states into
:class:`PeerPresence` records; a state without a ``user`` (a client that
publishes something else) is not a peer one can show.
"""

from __future__ import annotations

import getpass
import socket
from typing import Any

from agent_doc._runtime.record import Record

EDITOR = "editor"
"""``user.kind`` of a person's editor."""
AGENT = "agent"
"""``user.kind`` of the agent's writer."""


class PeerPresence(Record):
    """One other peer of the room, as its awareness state says."""

    __slots__ = ("client", "name", "kind", "cursor", "writing")

    def __init__(
        self,
        client: int,
        name: str,
        kind: str,
        cursor: tuple[int, int] | None,
        writing: bool,
    ) -> None:
        self.client = client
        """Its awareness client id."""
        self.name = name
        """``user.name`` (``ann@laptop``, ``agent``)."""
        self.kind = kind
        """``editor``, ``agent`` or what another client calls itself."""
        self.cursor = cursor
        """``(line, UTF-16 character)``, or ``None`` when not shown."""
        self.writing = writing
        """It is writing into the document now (an agent's answer)."""

    def to_json(self) -> dict[str, Any]:
        """The peer as sent to editors: ``{id, name, kind, cursor, writing}``."""
        cursor = None
        if self.cursor is not None:
            cursor = {"line": self.cursor[0], "character": self.cursor[1]}
        return {
            "id": self.client,
            "name": self.name,
            "kind": self.kind,
            "cursor": cursor,
            "writing": self.writing,
        }


def default_name() -> str:
    """The name a person's editor shows when none is configured: ``user@host``."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no $USER
        user = "someone"
    return f"{user}@{socket.gethostname().split('.')[0]}"


def editor_state(name: str, cursor: tuple[int, int] | None = None) -> dict[str, Any]:
    """An editor's awareness state."""
    return {"user": {"name": name, "kind": EDITOR}, "cursor": cursor_json(cursor)}


def agent_state() -> dict[str, Any]:
    """The agent writer's awareness state while it writes."""
    return {"user": {"name": "agent", "kind": AGENT}, "writing": True}


def cursor_json(cursor: tuple[int, int] | None) -> dict[str, int] | None:
    """``(line, character)`` as the state's ``cursor`` field."""
    if cursor is None:
        return None
    return {"line": cursor[0], "character": cursor[1]}


def _natural(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def read_presence(client: int, state: Any) -> PeerPresence | None:
    """The peer a state describes, or ``None`` (no ``user``: nothing to show).

    Fields of the wrong type are read as absent: a client with a different
    idea of the state never breaks the others' presence.
    """
    if not isinstance(state, dict) or not isinstance(state.get("user"), dict):
        return None
    user = state["user"]
    name = user.get("name")
    kind = user.get("kind")
    cursor = None
    raw = state.get("cursor")
    if isinstance(raw, dict):
        line, character = _natural(raw.get("line")), _natural(raw.get("character"))
        if line is not None and character is not None:
            cursor = (line, character)
    return PeerPresence(
        client,
        name if isinstance(name, str) and name else f"peer {client}",
        kind if isinstance(kind, str) and kind else EDITOR,
        cursor,
        state.get("writing") is True,
    )


def present_peers(states: dict[int, Any], own: int) -> tuple[PeerPresence, ...]:
    """The peers other than ``own`` in ``states``, in a stable order."""
    peers = (
        read_presence(client, state)
        for client, state in states.items()
        if client != own
    )
    return tuple(
        sorted(
            (p for p in peers if p is not None),
            key=lambda p: (p.kind != EDITOR, p.name, p.client),
        )
    )


def status_words(peers: tuple[PeerPresence, ...]) -> str:
    """``3 peers · agent writing``: the editors counted, who is writing."""
    editors = sum(1 for p in peers if p.kind != AGENT)
    words = f"{editors} peer{'' if editors == 1 else 's'}"
    writers = sorted({p.name for p in peers if p.writing})
    if writers:
        words += f" · {', '.join(writers)} writing"
    return words
