"""Cross-session hook events (spec §9.5): fire, poll, gc and their transports.

An event is a small JSON object ``{event, file, session, timestamp, pid}``
(``timestamp`` in Unix milliseconds). The file transport stores it atomically
as ``.agent-doc/hooks/<event>/<timestamp>-<random>.json``; pollers read the
events newer than a given age, and events older than :data:`EVENT_TTL_S` are
removed. The socket transport sends one NDJSON line to the listener of
:mod:`agent_doc.store.event_socket` and expects ``ok\\n``; the chain transport tries
the socket first and falls back to the file.

agent-doc itself fires ``post_write`` (after a response lands) and
``post_commit`` (after a commit) through :func:`fire_quietly`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.lazy import lazy_logger
from agent_doc._runtime.record import Record
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.errors import StateError
from agent_doc.store.event_socket import HookListener
from agent_doc.store.event_socket import send_line
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any
    from typing import Protocol

    from agent_doc.store.event_socket import HookListener

logger = lazy_logger(__name__)

EVENT_TTL_S = 3600
"""Events older than this (seconds) are expired and removed."""
EVENT_NAME_RE = lazy_compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_OWN_EVENTS = frozenset({"post_write", "post_commit"})
"""The events agent-doc fires itself (valid names)."""


class HookEvent(Record):
    """One fired event."""

    __slots__ = ("event", "file", "session", "timestamp", "pid")

    def __init__(
        self,
        event: str,
        file: str,
        session: str | None,
        timestamp: int,
        pid: int,
    ) -> None:
        self.event = event
        self.file = file
        self.session = session
        self.timestamp = timestamp
        """Unix time in milliseconds."""
        self.pid = pid

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object."""
        return dict(self._asdict())

    @classmethod
    def from_json(cls, data: Any) -> HookEvent:
        """Validate and build an event from decoded JSON (raises StateError)."""
        if not isinstance(data, dict):
            raise StateError("hook event is not a JSON object")
        event, file = data.get("event"), data.get("file")
        if not isinstance(event, str) or not EVENT_NAME_RE.match(event):
            raise StateError(f"invalid hook event name {event!r}")
        if not isinstance(file, str):
            raise StateError("hook event has no 'file'")
        session = data.get("session")
        stamp, pid = data.get("timestamp"), data.get("pid")
        return cls(
            event=event,
            file=file,
            session=session if isinstance(session, str) else None,
            timestamp=stamp if isinstance(stamp, int) else _now_ms(),
            pid=pid if isinstance(pid, int) else 0,
        )


def _now_ms() -> int:
    return int(time.time() * 1000)


def check_event_name(event: str) -> str:
    """Return ``event`` if it is a valid name (letters, digits, ``_.-``)."""
    if event in _OWN_EVENTS:  # valid: no pattern to compile
        return event
    if not EVENT_NAME_RE.match(event):
        raise StateError(f"invalid hook event name '{event}'")
    return event


def hooks_dir(root: Path) -> Path:
    """``<root>/.agent-doc/hooks``."""
    return root / ".agent-doc" / "hooks"


def make_event(event: str, file: Path, text: str | None = None) -> HookEvent:
    """Build an event for ``file``; the session comes from its frontmatter.

    ``text`` is the file's current text when the caller has it (it was just
    written), so the file is not read again.
    """
    path = Path(file).resolve()
    try:
        if text is None:
            text = read_document(path).text
        session = parse_frontmatter(text).session
    except AgentDocError:
        session = None
    name = check_event_name(event)
    return HookEvent(name, str(path), session, _now_ms(), os.getpid())


def store_event(root: Path, event: HookEvent) -> Path:
    """Write ``event`` atomically under ``hooks/<event>/``; return its path."""
    name = f"{event.timestamp:013d}-{os.urandom(4).hex()}.json"
    target = hooks_dir(root) / check_event_name(event.event) / name
    data = event_json(event) + "\n"
    # atomic for every reader, not fsynced: a notification, not user data
    atomic_write_text(target, data, durable=False)
    return target


def event_json(event: HookEvent) -> str:
    """``event`` as one line of JSON: what ``json.dumps(event.to_json(),
    ensure_ascii=False)`` gives, without loading :mod:`json` or its C
    accelerator (a write fires ``post_write`` and needs nothing else of them)."""
    session = "null" if event.session is None else json_string(event.session)
    return (
        f'{{"event": {json_string(event.event)}, "file": {json_string(event.file)}, '
        f'"session": {session}, "timestamp": {int(event.timestamp)}, '
        f'"pid": {int(event.pid)}}}'
    )


_JSON_ESCAPES = {
    **{code: f"\\u{code:04x}" for code in range(0x20)},
    **{ord(c): f"\\{e}" for c, e in zip('"\\\b\f\n\r\t', '"\\bfnrt', strict=True)},
}
"""What a JSON string escapes (``ensure_ascii=False``): quote, backslash and
the control characters, short forms where JSON has them."""


def json_string(text: str) -> str:
    """``text`` as a JSON string (as ``json.dumps(text, ensure_ascii=False)``)."""
    return '"' + text.translate(_JSON_ESCAPES) + '"'


def accept_event_line(root: Path, line: str) -> str:
    """Store one NDJSON event received by the hook listener; the reply to send."""
    try:
        store_event(root, HookEvent.from_json(json.loads(line)))
    except (ValueError, StateError) as exc:
        return f"error: {exc}"
    return "ok"


def event_listener(root: Path) -> HookListener:
    """A hook listener bound to ``root`` that stores every event it receives."""
    return HookListener(root, lambda line: accept_event_line(root.resolve(), line))


def _event_files(root: Path, event: str | None = None) -> list[Path]:
    base = hooks_dir(root)
    if event:
        folders = [base / event]
    else:
        folders = sorted(p for p in base.glob("*") if p.is_dir())
    return sorted(f for d in folders if d.is_dir() for f in d.glob("*.json"))


def _stamp_of(path: Path) -> int | None:
    head = path.name.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def gc_events(
    root: Path,
    *,
    ttl_s: float = EVENT_TTL_S,
    now_ms: int | None = None,
    dry_run: bool = False,
) -> list[Path]:
    """Remove (or, with ``dry_run``, list) expired events of every hook."""
    now = _now_ms() if now_ms is None else now_ms
    expired = []
    for path in _event_files(root):
        stamp = _stamp_of(path)
        if stamp is None or now - stamp > ttl_s * 1000:
            expired.append(path)
            if not dry_run:
                with contextlib.suppress(OSError):
                    path.unlink()
    return expired


def poll_events(
    root: Path, event: str, *, since_s: float = EVENT_TTL_S, now_ms: int | None = None
) -> list[HookEvent]:
    """Events of ``event`` at most ``since_s`` seconds old, oldest first.

    Expired events of every hook are cleaned on the way.
    """
    now = _now_ms() if now_ms is None else now_ms
    gc_events(root, now_ms=now)
    found = []
    for path in _event_files(root, check_event_name(event)):
        stamp = _stamp_of(path)
        if stamp is None or now - stamp > since_s * 1000:
            continue
        try:
            found.append(HookEvent.from_json(json.loads(path.read_text("utf-8"))))
        except (OSError, ValueError, StateError) as exc:
            logger.warning("skipping unreadable hook event %s: %s", path, exc)
    return found


if TYPE_CHECKING:  # a protocol for the type checker only: nothing tests it at run time

    class HookTransport(Protocol):
        """Delivers an event; returns False when it could not."""

        def send(self, root: Path, event: HookEvent) -> bool:
            """Deliver ``event`` for the project at ``root``."""


class FileTransport:
    """Store the event under ``.agent-doc/hooks/`` (the default)."""

    def send(self, root: Path, event: HookEvent) -> bool:
        """Store the event; raises StateError when it cannot be written."""
        store_event(root, event)
        return True


class SocketTransport:
    """Send the event to the ``hook listen`` socket and wait for ``ok``."""

    def __init__(self, timeout: float = 1.0) -> None:
        self.timeout = timeout
        """Seconds to wait for the connection and the ack."""

    def send(self, root: Path, event: HookEvent) -> bool:
        """True when the listener acknowledged the event."""
        line = event_json(event)
        return send_line(root, line, timeout=self.timeout) == "ok"


class ChainTransport:
    """Try each transport in turn until one delivers."""

    def __init__(self, *transports: HookTransport) -> None:
        self.transports = transports
        """The transports, in order of preference."""

    def send(self, root: Path, event: HookEvent) -> bool:
        """True when one of the transports delivered the event."""
        return any(t.send(root, event) for t in self.transports)


TRANSPORTS = ("file", "socket", "chain")


def transport_named(name: str) -> HookTransport:
    """``file`` | ``socket`` | ``chain`` (socket, then file)."""
    if name == "file":
        return FileTransport()
    if name == "socket":
        return SocketTransport()
    if name == "chain":
        return ChainTransport(SocketTransport(), FileTransport())
    raise StateError(f"unknown hook transport '{name}' (file, socket or chain)")


def fire_event(
    event: str,
    file: Path,
    *,
    transport: str = "file",
    root: Path | None = None,
    text: str | None = None,
) -> HookEvent:
    """Fire ``event`` for ``file``; raises StateError when it was not delivered.

    ``text``: the file's current text, when known (see :func:`make_event`).
    """
    item = make_event(event, file, text)
    base = root if root is not None else project_root_for(Path(file))
    if not transport_named(transport).send(base, item):
        raise StateError(f"hook '{event}' not delivered by the {transport} transport")
    return item


def fire_quietly(event: str, file: Path, text: str | None = None) -> None:
    """Fire a lifecycle event (chain transport); failures are only logged.

    ``text``: the file's current text, when known (see :func:`make_event`).
    """
    try:
        fire_event(event, file, transport="chain", text=text)
    except (AgentDocError, OSError) as exc:
        logger.warning("hook %s not fired: %s", event, exc)
