"""Every session document of a workspace at a glance (``agentDoc.sessions``).

A session document is a markdown file under the workspace folders whose
frontmatter has ``agent_doc_session``. For each: its agent state and pane (from
the editor's last poll when it is open, else polled here), when the agent last
answered (the modification time of its CRDT state, which only agent writes
save) and
whether the person has unsent changes (the live buffer, or the file, against
the snapshot, as :mod:`agent_doc.editor.unsent` counts them). Adapter: reads
files and runs tmux; files are re-read only when their stamp changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from datetime import timezone
from pathlib import Path
from typing import Any

from agent_doc.editor import agent_status
from agent_doc.editor.agent_status import EditorStatus
from agent_doc.editor.agent_status import OpenDoc
from agent_doc.editor.project import MAX_FILE_BYTES
from agent_doc.editor.project import markdown_files
from agent_doc.editor.unsent import unsent_changes
from agent_doc.errors import AgentDocError
from agent_doc.store.state import StateStore


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session document as the sessions view shows it."""

    path: Path
    session: str
    status: EditorStatus
    last_answer: str | None
    """ISO-8601 time of the agent's last write (``None``: never answered)."""
    unsent: int | None
    """Changes the next submit sends (``None``: never sent, the whole document goes)."""
    is_open: bool

    def payload(self) -> dict[str, Any]:
        """The wire form (camelCase, like ``agentDoc/status``)."""
        return {
            "path": str(self.path),
            "name": self.path.name,
            "session": self.session,
            **self.status.payload(),
            "lastAnswer": self.last_answer,
            "unsent": self.unsent is None or self.unsent > 0,
            "unsentChanges": self.unsent,
            "open": self.is_open,
        }


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class SessionScanner:
    """Finds session documents under roots; each file re-read only when changed."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[tuple[int, int] | None, OpenDoc | None]] = {}
        self._lock = threading.Lock()
        self.stores: agent_status.Stores = {}
        """Agent-state observations of documents polled here (not open)."""

    def session_doc(self, path: Path) -> OpenDoc | None:
        """The :class:`OpenDoc` of the file ``path`` if it is a session document."""
        stamp = _stamp(path)
        cached = self._files.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        doc = None
        if stamp is not None and stamp[1] <= MAX_FILE_BYTES:
            try:
                doc = agent_status.open_doc(path, path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                doc = None
        self._files[path] = (stamp, doc)
        return doc

    def scan(
        self,
        roots: Iterable[Path],
        live: Mapping[Path, str],
        shown: Mapping[Path, EditorStatus],
    ) -> list[SessionRow]:
        """Rows of every session document under ``roots`` (open ones from ``live``).

        ``live`` maps open documents to their buffer text, ``shown`` to the
        status the editor last showed; other documents are polled once.
        """
        with self._lock:
            docs: dict[Path, tuple[OpenDoc, str | None]] = {}
            for path in markdown_files(roots):
                path = path.absolute()
                text = live.get(path)
                doc = (
                    agent_status.open_doc(path, text)
                    if text is not None
                    else self.session_doc(path)
                )
                if doc is not None:
                    docs[path] = (doc, text)
            unseen = [d for p, (d, _t) in docs.items() if p not in shown]
            polled, failure = _poll(unseen, self.stores)
            return [
                _row(doc, text, shown.get(path) or polled.get(path) or failure(doc))
                for path, (doc, text) in sorted(docs.items())
            ]


def _poll(
    docs: list[OpenDoc], stores: agent_status.Stores
) -> tuple[dict[Path, EditorStatus], Callable[[OpenDoc], EditorStatus]]:
    """Poll ``docs`` once; when tmux fails, every row says why (state ``none``)."""
    reason = ""
    try:
        polled = agent_status.poll(docs, stores) if docs else {}
    except AgentDocError as exc:
        polled, reason = {}, f"tmux: {exc}"

    def failure(doc: OpenDoc) -> EditorStatus:
        return EditorStatus(agent_status.NONE, None, doc.agent or "agent", reason)

    return polled, failure


def _row(doc: OpenDoc, text: str | None, status: EditorStatus) -> SessionRow:
    store = StateStore.for_document(doc.path)
    written = _stamp(store.crdt_path(doc.path))
    last = None
    is_open = text is not None
    if written is not None:
        when = datetime.fromtimestamp(written[0] / 1e9, tz=timezone.utc)
        last = when.isoformat(timespec="seconds")
    if text is None:
        try:
            text = doc.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
    snapshot = store.load_snapshot(doc.path)
    changes = unsent_changes(snapshot, text).changes if snapshot is not None else None
    return SessionRow(doc.path, doc.key, status, last, changes, is_open)
