"""Shared session documents: Yjs rooms served by ``agent-doc serve`` (issue 29).

A session document becomes a room on a pycrdt-websocket server; its state lives
in a SQLiteYStore (the source of truth) and the file on disk is a projection.
Writers on any host (``agent-doc write --room``) edit the room as a Yjs peer.

Modules: :mod:`.access` (the project token, loopback rules), :mod:`.textedit`
(minimal Yjs edits between two texts), :mod:`.documents` (room ↔ document),
:mod:`.room_file` (seeding, projection, outside edits), :mod:`.server` (the
ASGI server), :mod:`.channel` (an httpx-ws channel for ``pycrdt.Provider``) and
:mod:`.remote` (the writer). pycrdt-websocket, pycrdt-store, uvicorn and
httpx-ws are imported inside the functions that use them, never at import.
"""
