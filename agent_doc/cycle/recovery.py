"""``recover``: re-apply orphaned pending responses; ``preflight`` runs it too.

``recover`` also removes the temporary files a killed writer left next to a
document or under ``.agent-doc/`` (:func:`agent_doc.store.debris.remove_debris`).

A response is saved as *pending* before it is written; a writer that died
leaves it behind. :func:`recover_pending` finishes a write that had landed
(bookkeeping only) or applies the response again through the write path,
with the answer id of its pending copy, so a landed answer is never landed
twice (:mod:`agent_doc.write.landing`).
The write path is imported only when there is something to recover, so a
``preflight`` with nothing pending stays cheap.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import AgentDocError
from agent_doc.errors import TurnRunning
from agent_doc.store.landing import compacting_records
from agent_doc.store.landing import record_path
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_hash
from agent_doc.store.state import split_pending

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.write.pipeline import WriteOutcome
    from agent_doc.write.server_link import ServerLink

SKIP_DIRS = frozenset({".git", ".agent-doc", ".venv", "venv", "node_modules"})
"""Folders never searched for documents."""


class Recovered(Record):
    """One orphaned pending response and what ``recover`` did with it."""

    __slots__ = ("pending", "path", "status", "error", "outcome")

    def __init__(
        self,
        pending: Path,
        path: Path | None,
        status: str,
        error: str | None = None,
        outcome: WriteOutcome | None = None,
    ) -> None:
        self.pending = pending
        self.path = path
        self.status = status
        """``written``, ``completed`` (the interrupted write had already landed; only
        its bookkeeping was finished, the response is not added again),
        ``compaction completed`` / ``compaction undone`` (a ``compact`` a crash
        interrupted between its archive and its document), ``dropped``
        (an empty response: nothing to write, so the file is removed instead of
        failing every later ``recover`` and preflight) or ``failed`` (the pending
        file is then kept)."""
        self.error = error
        self.outcome = outcome
        """What the write did (``written``/``completed``)."""


def _documents_by_hash(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            if name.endswith(".md"):
                doc = Path(folder) / name
                found[doc_hash(doc)] = doc
    return found


def _drop_pending(pending: Path) -> None:
    """Remove a pending response and its ``.expect`` digest."""
    for path in (pending, pending.with_suffix(".expect")):
        path.unlink(missing_ok=True)


def recover_pending(
    path: Path | None = None, link: ServerLink | None = None
) -> list[Recovered]:
    """Re-apply orphaned pending responses through the write path.

    With ``path``: that document's pending response; otherwise every pending
    response of the current folder's project (documents found by hash). A
    response that fails again stays pending, so it is never lost.
    """
    if path is not None:
        store = StateStore.for_document(Path(path))
        pending = store.pending_path(Path(path))
        todo: list[tuple[Path, Path | None]] = (
            [(pending, Path(path))] if pending.is_file() else []
        )
        compacting = [Path(path)] if _compacting(store, Path(path)) else []
    else:
        store = StateStore.for_document(Path.cwd())
        records = compacting_records(store)
        needed = store.list_pending() or records
        docs = _documents_by_hash(store.root) if needed else {}
        todo = [(p, docs.get(p.stem)) for p in store.list_pending()]
        compacting = [docs[h] for h in records if h in docs]
    done = [_settle_compaction(doc, link) for doc in compacting]
    return [r for r in done if r is not None] + [
        _recover_one(pending, doc, link) for pending, doc in todo
    ]


def _compacting(store: StateStore, doc: Path) -> bool:
    """Whether ``doc``'s landing record names a compaction in progress."""
    from agent_doc.store.landing import load_record

    return record_path(store, doc).is_file() and (
        load_record(store, doc).compacting is not None
    )


def _settle_compaction(doc: Path, link: ServerLink | None) -> Recovered | None:
    """Complete or undo a compaction of ``doc`` that a crash interrupted."""
    from agent_doc.cycle.compact_landing import settle_compaction
    from agent_doc.cycle.turn_lock import acquire_turn
    from agent_doc.store.state import doc_lock
    from agent_doc.write.outcome import normalize_text

    store = StateStore.for_document(doc)
    try:
        with acquire_turn(doc, "recover"), doc_lock(doc, root=store.root):
            handle = link.find_owner(doc) if link is not None else None
            live = normalize_text(handle.text) if handle is not None else None
            result = settle_compaction(doc, live)
    except TurnRunning:
        return None  # a live compact (or this very turn) finishes it
    except AgentDocError as exc:
        return Recovered(record_path(store, doc), doc, "failed", str(exc))
    if result is None:
        return None
    return Recovered(record_path(store, doc), doc, f"compaction {result}")


def _recover_one(pending: Path, doc: Path | None, link: ServerLink | None) -> Recovered:
    """Recover one pending response of ``doc`` (``None``: document not found)."""
    from agent_doc.write.outcome import normalize_text
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import finish_interrupted
    from agent_doc.write.pipeline import write_response

    try:
        response, answer_id = split_pending(pending.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Recovered(pending, doc, "failed", f"unreadable: {exc}")
    if not response.strip():
        _drop_pending(pending)
        return Recovered(pending, doc, "dropped", "empty response")
    if doc is None:
        return Recovered(pending, None, "failed", "document not found")
    try:
        handle = link.find_owner(doc) if link is not None else None
        live = normalize_text(handle.text) if handle is not None else None
        done = finish_interrupted(doc, live, answer_id)
        if done is not None:
            return Recovered(pending, doc, "completed", outcome=done)
        request = WriteRequest(doc, response, origin="recover", answer_id=answer_id)
        outcome = write_response(request, link)
    except AgentDocError as exc:
        return Recovered(pending, doc, "failed", str(exc))
    return Recovered(pending, doc, "written", outcome=outcome)
