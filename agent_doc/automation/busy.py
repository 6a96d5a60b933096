"""Per-document operation status: the busy guard of ``watch`` (spec §7.23, §11.5).

``.agent-doc/status/<doc_hash>`` holds ``"<status>:<unix_ms>"`` where status is
one of :data:`STATUSES`. A status older than the document's timeout
(frontmatter ``agent_doc_status_timeout_ms``, default 30 000 ms) counts as
``idle``: the operation that set it probably crashed. Writers refresh the
status while they work; :func:`busy` sets it for the length of a ``with`` block
and puts ``idle`` back afterwards, even on errors.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

from agent_doc._runtime.lazy import lazy_logger
from agent_doc.errors import AgentDocError
from agent_doc.errors import StateError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_hash
from agent_doc.store.state import project_root_for
from agent_doc.store.state import require_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Literal

    Status = Literal["generating", "writing", "routing", "idle"]

logger = lazy_logger(__name__)

STATUSES: tuple[Status, ...] = ("generating", "writing", "routing", "idle")
DEFAULT_STATUS_TIMEOUT_MS = 30_000
HEARTBEAT_THREAD = "agent-doc-busy-heartbeat"
"""Name of the thread refreshing a long operation's status."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def status_path(path: Path, root: Path | None = None) -> Path:
    """``<root>/.agent-doc/status/<doc_hash>`` of a document."""
    base = root if root is not None else project_root_for(path)
    return base / STATE_DIR / "status" / doc_hash(path)


def set_status(
    path: Path, status: Status, *, root: Path | None = None, now_ms: int | None = None
) -> None:
    """Record ``status`` for the document (atomic write)."""
    if status not in STATUSES:
        raise StateError(f"unknown status '{status}' (one of {', '.join(STATUSES)})")
    stamp = _now_ms() if now_ms is None else now_ms
    # not fsynced: a status only matters while its process runs (stale after
    # the timeout), and two fsyncs per write cost more than the write itself
    atomic_write_text(status_path(path, root), f"{status}:{stamp}", durable=False)


def parse_status(text: str) -> tuple[Status, int] | None:
    """Parse ``"<status>:<unix_ms>"``; ``None`` when malformed."""
    name, _, stamp = text.strip().partition(":")
    if name not in STATUSES or not stamp.isdigit():
        return None
    return name, int(stamp)


def status_timeout_ms(path: Path) -> int:
    """The document's staleness timeout (frontmatter, else the default)."""
    from agent_doc.automation.user_typing import timings_for

    return timings_for(path).status_timeout_ms


def get_status(
    path: Path,
    *,
    timeout_ms: int | None = None,
    root: Path | None = None,
    now_ms: int | None = None,
) -> Status:
    """The document's current status; missing, malformed or stale → ``idle``."""
    try:
        text = status_path(path, root).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "idle"
    parsed = parse_status(text)
    if parsed is None:
        return "idle"
    name, stamp = parsed
    limit = status_timeout_ms(path) if timeout_ms is None else timeout_ms
    now = _now_ms() if now_ms is None else now_ms
    return "idle" if now - stamp > limit else name


def is_busy(
    path: Path,
    *,
    timeout_ms: int | None = None,
    root: Path | None = None,
    now_ms: int | None = None,
) -> bool:
    """True while another agent-doc operation works on the document."""
    status = get_status(path, timeout_ms=timeout_ms, root=root, now_ms=now_ms)
    return status != "idle"


@contextlib.contextmanager
def busy(
    path: Path, status: Status, *, root: Path | None = None, heartbeat: bool = False
) -> Iterator[None]:
    """Hold ``status`` for the document during the block, then set ``idle``.

    With ``heartbeat`` the status is refreshed every third of the document's
    timeout, so a long turn (an agent thinking for minutes) never looks stale.
    Failing to record the status never fails the operation (it is logged).
    Raises :class:`DocumentError` first, creating nothing, unless the document
    is a regular file.
    """
    require_document(path)
    _record(path, status, root)
    beat: tuple[threading.Thread, threading.Event] | None = None
    if heartbeat:
        stop = threading.Event()
        thread = threading.Thread(
            target=_refresh,
            args=(path, status, root, stop),
            name=HEARTBEAT_THREAD,
            daemon=True,
        )
        thread.start()
        beat = (thread, stop)
    try:
        yield
    finally:
        if beat is not None:
            beat[1].set()
            beat[0].join()
        try:
            set_status(path, "idle", root=root)
        except AgentDocError as exc:
            logger.warning("status not reset: %s", exc)


def _record(path: Path, status: Status, root: Path | None) -> None:
    try:
        set_status(path, status, root=root)
    except AgentDocError as exc:
        logger.warning("status not recorded: %s", exc)


def _refresh(
    path: Path, status: Status, root: Path | None, stop: threading.Event
) -> None:
    """Re-record ``status`` until ``stop`` is set (the heartbeat thread)."""
    try:
        every_s = max(status_timeout_ms(path) / 3000, 0.05)
    except (AgentDocError, OSError):
        every_s = DEFAULT_STATUS_TIMEOUT_MS / 3000
    while not stop.wait(every_s):
        _record(path, status, root)
