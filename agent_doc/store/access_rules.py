"""The token rules shared by the sync server and remote agents.

A token is kept in a file (or an environment variable) and sent as
``Authorization: Bearer <token>``, never in a URL (URLs end up in logs and
shell history). Anything but a loopback address needs one: ``agent-doc serve``
refuses to bind such an address without a token, and an ``acp-ws`` agent whose
URL names such a host is refused without one.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

from agent_doc.errors import ConfigError
from agent_doc.errors import ShareError

WEBSOCKET_SCHEMES = ("ws", "wss")
"""URL schemes of a websocket endpoint."""


def read_token_file(path: Path) -> str:
    """The token in ``path`` (surrounding whitespace dropped).

    Raises :class:`ShareError` when the file is missing, unreadable or empty.
    """
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ShareError(f"cannot read the token file {path}: {exc}") from None
    if not token:
        raise ShareError(f"the token file {path} is empty")
    return token


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to a public address


def check_websocket_url(url: object, *, has_token: bool, where: str) -> str:
    """Return ``url`` if it is a usable websocket endpoint; else a ``ConfigError``.

    It must be ``ws://`` or ``wss://`` with a host, carry no credentials
    (user info or a query string: the token goes in a header) and, unless a
    token is configured, name a loopback host.
    """
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"{where} url must be a non-empty string (ws://host:port/…)")
    parts = urlsplit(url.strip())
    if parts.scheme not in WEBSOCKET_SCHEMES or not parts.hostname:
        raise ConfigError(
            f"{where} url must be ws://host:port/… or wss://…, got {url!r}"
        )
    if parts.username is not None or parts.password is not None or parts.query:
        raise ConfigError(
            f"{where} url must not carry credentials or a query string: put the "
            "token in token_file or token_env (it is sent as an Authorization header)"
        )
    if not has_token and not is_loopback(parts.hostname):
        raise ConfigError(
            f"{where} url {url!r} is not a loopback address: set token_file or "
            "token_env (without a token only 127.0.0.1, ::1 or localhost is allowed)"
        )
    return url.strip()
