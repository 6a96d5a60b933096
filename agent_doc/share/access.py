"""Who may join a room: the per-project token and the loopback rule.

The token is random (``secrets.token_urlsafe(32)``), kept in a 0600 file under
``.agent-doc/share/token`` (runtime state, git-ignored), created on the first
``agent-doc serve`` and replaced by ``agent-doc share token --rotate``. Clients
send it as ``Authorization: Bearer <token>``; a token in the URL's query string
is never read (URLs end up in logs and shell history).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path

from agent_doc.store.access_rules import is_loopback as is_loopback
from agent_doc.store.access_rules import read_token_file as read_token_file
from agent_doc.store.atomic import atomic_write_text

SHARE_DIR = Path(".agent-doc") / "share"
"""The sync server's state folder, relative to the project root."""
TOKEN_MODE = 0o600
"""Permission bits of the token file: the owner only."""


def share_dir(root: Path) -> Path:
    """``<root>/.agent-doc/share``: the store, the token, the projections."""
    return Path(root) / SHARE_DIR


def token_path(root: Path) -> Path:
    """Where the project's token is kept."""
    return share_dir(root) / "token"


def project_token(root: Path) -> str | None:
    """The project's token, or ``None`` when none was created yet."""
    path = token_path(root)
    return read_token_file(path) if path.exists() else None


def ensure_token(root: Path) -> str:
    """The project's token, created (0600) when there is none."""
    return project_token(root) or rotate_token(root)


def rotate_token(root: Path) -> str:
    """Replace the project's token with a new random one and return it.

    Clients holding the old token are refused on their next connect.
    """
    token = secrets.token_urlsafe(32)
    path = token_path(root)
    atomic_write_text(path, token + "\n", mode=TOKEN_MODE)
    path.chmod(TOKEN_MODE)  # an existing file keeps its bits otherwise
    return token


def bearer_token(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer …`` header (ASGI header pairs)."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def token_matches(given: str | None, expected: str) -> bool:
    """Whether ``given`` is ``expected`` (constant-time comparison)."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def refusal_reason(status: int) -> str:
    """What an HTTP answer to the websocket upgrade means for the person.

    agent-doc serve answers 403 to a refused token or room; anything else
    comes from something that is not (or not only) an agent-doc serve.
    """
    if status in (401, 403):
        return (
            "wrong or missing token, or no session document with that id on the server"
        )
    if status == 404:
        return (
            "nothing there takes rooms: not an agent-doc serve, or a wrong host, "
            "port or path in the URL"
        )
    return "no websocket was opened: not an agent-doc serve, or a proxy refused it"
