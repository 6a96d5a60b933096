"""Which room is which document: the session UUID in the frontmatter.

A room's name is the websocket path ``/<uuid>``, where ``<uuid>`` is the
document's ``agent_doc_session``. The server looks documents up under its
project root; the writer reads the UUID of its own copy to name the room.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import DocumentError
from agent_doc.errors import ShareError
from agent_doc.store.state import read_document

ROOM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
"""What a room name (a session id) may look like: no slashes, no dots first."""
_SKIP_DIRS = frozenset({".git", ".agent-doc", "node_modules"})
_MAX_BYTES = 64 << 20


def session_id(text: str) -> str | None:
    """The ``agent_doc_session`` of a document's text, or ``None``."""
    try:
        session = parse_frontmatter(text).session
    except DocumentError:
        return None
    return session if session and ROOM_NAME.match(session) else None


def session_id_of(path: Path) -> str:
    """The session id of the document at ``path``; :class:`ShareError` if none."""
    session = session_id(read_document(Path(path)).text)
    if session is None:
        raise ShareError(
            f"{path} has no agent_doc_session in its frontmatter: it has no room"
        )
    return session


def find_session_documents(root: Path) -> dict[str, Path]:
    """Every session document under ``root`` by its session id.

    Hidden folders, ``.git``, ``.agent-doc`` and ``node_modules`` are skipped.
    When two documents share an id (a copied file), the first in path order wins.
    """
    found: dict[str, Path] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and d[0] != ".")
        for name in sorted(files):
            if not name.endswith((".md", ".markdown")):
                continue
            path = Path(folder) / name
            session = _session_of_file(path)
            if session is not None:
                found.setdefault(session, path)
    return found


def _session_of_file(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        with path.open("rb") as handle:
            head = handle.read(4096)
        if not head.startswith(b"---"):
            return None  # no frontmatter: not a session document
        return session_id(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
