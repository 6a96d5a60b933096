""" "Will be sent": Hint diagnostics and the Submit lens count of unsent changes.

Each diagnostics run (debounced by ``diagnosticsDebounceMs``, in a worker
thread) adds, for session
documents, the marks of :func:`agent_doc.editor.unsent.unsent_changes`: Hint
diagnostics with source ``agent-doc`` and code ``unsent`` ("will be sent") or
``private`` ("private, not sent"). The snapshot is read once per change of its
file (:class:`~agent_doc.editor.snapshots.SnapshotCache`, as a view of pieces,
not one ``str``) and prepared once
(:class:`~agent_doc.editor.unsent.UnsentBaseline`) and compared with the
buffer's view of the server's chunks (no join); the result is cached per
document version, so the Submit lens (``Submit · 3 changes (+12 −2
lines)``) costs nothing more. After each agent-status poll, a changed snapshot
(an agent write or a commit) re-runs the diagnostics of that document.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import TextLike
from agent_doc.document.textlike import contains
from agent_doc.editor import is_session_document
from agent_doc.editor.model import Problem
from agent_doc.editor.outline import is_session_head
from agent_doc.editor.snapshots import SnapshotCache
from agent_doc.editor.unsent import UnsentBaseline
from agent_doc.editor.unsent import UnsentSummary
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features import diagnostics
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)


@dataclass
class UnsentState:
    """Per-server cache of this feature."""

    snapshots: SnapshotCache = field(default_factory=SnapshotCache)
    """Snapshot texts, re-read only when their file changes."""
    summaries: dict[str, tuple[int | None, TextLike | None, UnsentSummary]] = field(
        default_factory=dict
    )
    """URI → (buffer version, snapshot it was computed from, summary)."""
    titles: dict[str, str] = field(default_factory=dict)
    """URI → Submit lens title last published."""
    baselines: dict[str, UnsentBaseline] = field(default_factory=dict)
    """URI → its snapshot, prepared for comparing (rebuilt when it changes)."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, UnsentState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> UnsentState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, UnsentState())


def summary(ls: AgentDocLanguageServer, uri: str) -> UnsentSummary | None:
    """The unsent changes of the open session document ``uri`` (cached; a
    version already summed up is not read whole again)."""
    head = ls.buffers.head(uri)
    if head is None:
        return None
    state = state_of(ls)
    cached = state.summaries.get(head.uri)
    if (
        head.path is not None
        and cached
        and cached[0] == head.version
        and state.snapshots.holds(head.path, cached[1])
    ):
        return cached[2]
    buffer = ls.buffers.get(uri)
    return None if buffer is None else summary_of(ls, buffer)


def summary_of(ls: AgentDocLanguageServer, buffer: Buffer) -> UnsentSummary | None:
    """The unsent changes of ``buffer`` (cached per version; thread-safe: two
    threads asking at once both compute, and either result is kept)."""
    if buffer.path is None or not _is_session(buffer):
        return None
    state = state_of(ls)
    view = buffer.view  # a snapshot read anew shares its chunks
    like = view if isinstance(view, ChunkView) else None
    snapshot = state.snapshots.get(buffer.path, like)
    cached = state.summaries.get(buffer.uri)
    if cached and cached[0] == buffer.version and cached[1] is snapshot:
        return cached[2]
    if snapshot is None:
        result = UnsentSummary(False, 0, 0, 0, ())
    else:
        baseline = state.baselines.get(buffer.uri)
        if baseline is None or baseline.snapshot is not snapshot:
            baseline = state.baselines[buffer.uri] = UnsentBaseline(snapshot)
        result = baseline.changes(view)
    state.summaries[buffer.uri] = (buffer.version, snapshot, result)
    return result


def _is_session(buffer: Buffer) -> bool:
    """Whether ``buffer`` is a session document, told by its frontmatter
    (read from its head); only a document without one that holds component
    markers is read whole (its components are scanned)."""
    if is_session_head(buffer.head()):
        return True
    return contains(buffer.view, "<!-- agent:") and is_session_document(buffer.text)


def submit_title(ls: AgentDocLanguageServer, uri: str) -> str:
    """Title of the Submit lens: ``Submit`` plus what it will send."""
    try:
        found = summary(ls, uri)
    except OSError as exc:
        logger.info("unsent changes of %s: %s", uri, exc)
        found = None
    return found.lens_title() if found else "Submit"


def marks(ls: AgentDocLanguageServer, buffer: Buffer) -> list[Problem]:
    """The Hint marks of ``buffer`` (a diagnostics provider, run in a worker
    thread); has the loop refresh the lens when its title changed."""
    try:
        found = summary_of(ls, buffer)
    except Exception:  # never drop the other diagnostics
        logger.exception("unsent changes of %s failed", buffer.uri)
        return []
    if found is None:
        return []
    if ls.loop is not None:
        ls.loop.call_soon_threadsafe(_titled, ls, buffer.uri, found.lens_title())
    return list(found.marks)


def _titled(ls: AgentDocLanguageServer, uri: str, title: str) -> None:
    """Refresh the lenses when the Submit title of ``uri`` changed (on the loop)."""
    previous = state_of(ls).titles.get(uri)
    state_of(ls).titles[uri] = title
    if previous is not None and previous != title and ls.options.code_lens:
        agent_status.refresh_lenses(ls)  # the first title is fetched on open


def recheck(ls: AgentDocLanguageServer, uri: str, *_: Any) -> None:
    """Re-run the diagnostics of ``uri`` if its snapshot file changed."""
    buffer = ls.buffers.head(uri)  # its path only: no join of a long text per poll
    cached = state_of(ls).summaries.get(uri)
    if buffer is None or buffer.path is None or cached is None:
        return
    if not state_of(ls).snapshots.holds(buffer.path, cached[1]):
        diagnostics.schedule(ls, uri)


def forget(ls: AgentDocLanguageServer, uri: str) -> None:
    """Drop the cache of a closed document."""
    state = state_of(ls)
    state.summaries.pop(uri, None)
    state.titles.pop(uri, None)
    state.baselines.pop(uri, None)
    path = to_fs_path(uri)
    if path:
        state.snapshots.forget(Path(path))


def register(server: AgentDocLanguageServer) -> None:
    """Add the marks to the diagnostics and watch snapshots after each poll."""
    server.hooks.problems.append(marks)
    server.hooks.did_close.append(forget)
    agent_status.add_status_listener(server, recheck)
