"""Is the user typing? Live server state first, indicator files second (spec §11).

A language server that has the document open knows when the user last typed
(``{"type": "typing"}`` on the project socket, see :mod:`agent_doc.write.server_link`).
Without one, editor plugins and other tools may record the last edit in an
*indicator file*: ``.agent-doc/typing/<doc_hash>`` holding the Unix time in
milliseconds (SHA-256 names, so no collisions, cf. §11.3).

The timing constants are per document (§11.6): frontmatter
``agent_doc_debounce_ms``, ``agent_doc_typing_indicator_ms`` and
``agent_doc_status_timeout_ms`` override :data:`DEFAULT_TIMINGS`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_hash
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.write.server_link import ServerLink


@dataclass(frozen=True, slots=True)
class Timings:
    """The debounce constants of one document, in milliseconds."""

    debounce_ms: int = 500
    """How long the file must be quiet (mtime) before it is submitted."""
    typing_indicator_ms: int = 1500
    """How long after the last keystroke the user still counts as typing."""
    status_timeout_ms: int = 30_000
    """After this long a busy status is considered stale (crashed writer)."""


DEFAULT_TIMINGS = Timings()


def timings_for(path: Path) -> Timings:
    """The document's timings; unreadable documents get the defaults."""
    try:
        front = parse_frontmatter(read_document(Path(path)).text)
    except AgentDocError:
        return DEFAULT_TIMINGS
    return Timings(
        debounce_ms=_positive(front.debounce_ms, DEFAULT_TIMINGS.debounce_ms),
        typing_indicator_ms=_positive(
            front.typing_indicator_ms, DEFAULT_TIMINGS.typing_indicator_ms
        ),
        status_timeout_ms=_positive(
            front.status_timeout_ms, DEFAULT_TIMINGS.status_timeout_ms
        ),
    )


def _positive(value: int | None, default: int) -> int:
    return value if isinstance(value, int) and value >= 0 else default


def indicator_path(path: Path, root: Path | None = None) -> Path:
    """``<root>/.agent-doc/typing/<doc_hash>`` of a document."""
    base = root if root is not None else project_root_for(path)
    return base / STATE_DIR / "typing" / doc_hash(path)


def record_typing(
    path: Path, *, root: Path | None = None, now_ms: int | None = None
) -> None:
    """Write the indicator file: the user edited the document at ``now_ms``."""
    stamp = int(time.time() * 1000) if now_ms is None else now_ms
    atomic_write_text(indicator_path(path, root), str(stamp))


def last_typed_from_file(path: Path, root: Path | None = None) -> int | None:
    """Unix ms stored in the indicator file, or ``None`` (missing/malformed)."""
    try:
        text = indicator_path(path, root).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def last_typed(
    path: Path, link: ServerLink | None = None, *, root: Path | None = None
) -> int | None:
    """Unix ms of the last edit: a live server's answer, else the indicator file."""
    if link is not None:
        try:
            live = link.typing(path)
        except AgentDocError:
            live = None
        if live is not None:
            return live
    return last_typed_from_file(path, root)


def is_typing(
    path: Path,
    window_ms: int | None = None,
    *,
    link: ServerLink | None = None,
    root: Path | None = None,
    now_ms: int | None = None,
) -> bool:
    """True when the last edit is less than ``window_ms`` old.

    ``window_ms`` defaults to the document's ``typing_indicator_ms``.
    """
    stamp = last_typed(path, link, root=root)
    if stamp is None:
        return False
    window = timings_for(path).typing_indicator_ms if window_ms is None else window_ms
    now = int(time.time() * 1000) if now_ms is None else now_ms
    return now - stamp < window
