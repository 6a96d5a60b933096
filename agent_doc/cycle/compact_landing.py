"""``compact`` as one recoverable step: its durable steps, and finishing a killed one.

A compaction writes two files, the archive and the document. Before either,
the document's landing record (:mod:`agent_doc.store.landing`) names the
compaction: the archive, its size before, the digest it will have, the older
turns and the link that replaces them. Then, each durable before the next:

1. the record names the compaction (``compact.intent_recorded``);
2. the archive holds the turns (``compact.archive_written``);
3. the document holds the link instead (``compact.document_written``);
4. the snapshot, baseline and CRDT state follow (``compact.state_saved``);
5. the record forgets the compaction (``compact.done``).

:func:`settle_compaction` (run by ``recover``, ``preflight`` and the next
``compact``) looks at what a killed compaction left: the turns in the archive
and still in the document → the archive is put back as it was (undone); in
the archive and gone from the document → the state is brought along
(completed). A turn is never in both files, nor in neither.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.compaction import Compaction
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.errors import StateError
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.landing import Compacting
from agent_doc.store.landing import load_record
from agent_doc.store.landing import save_record
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document
from agent_doc.write.landing import data_digest

declare_points(
    {
        "compact.intent_recorded": "the record names the compaction; nothing moved",
        "compact.archive_written": "the turns are in the archive and the document",
        "compact.document_written": "the document holds the link; snapshot old",
        "compact.state_saved": "snapshot and baseline compacted; record not cleared",
        "compact.done": "the record forgets the compaction; no commit yet",
        "recover.archive_restored": "recover put the archive back; record remains",
    }
)


def _size_of(archive: Path) -> int | None:
    try:
        return archive.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"cannot read the archive {archive}: {exc}") from exc


def record_intent(
    store: StateStore, path: Path, archive: Path, new_archive: str, plan: Compaction
) -> None:
    """Step 1: the record names the compaction before any file is written."""
    intent = Compacting(
        id=data_digest(new_archive)[-8:],
        archive=str(archive),
        archive_size=_size_of(archive),
        archive_after=data_digest(new_archive),
        replaced=plan.replaced,
        link=plan.link,
    )
    record = load_record(store, path)
    save_record(store, path, record.with_compacting(intent))
    crash_point("compact.intent_recorded")


def forget_intent(store: StateStore, path: Path) -> None:
    """Step 5: the compaction is complete."""
    record = load_record(store, path)
    if record.compacting is not None:
        save_record(store, path, record.with_compacting(None))
    crash_point("compact.done")


def compacted_state(
    store: StateStore, path: Path, replaced: str, link: str
) -> tuple[str | None, str | None]:
    """The snapshot and baseline with ``replaced`` turned into ``link``
    (``None`` each: none, or it does not hold those turns any more)."""
    change = Compaction(0, 0, replaced, "", 0, 0, link)
    snapshot, baseline = store.load_snapshot(path), store.load_baseline(path)
    return (
        change.apply_to(snapshot) if snapshot is not None else None,
        change.apply_to(baseline) if baseline is not None else None,
    )


def save_compacted_state(
    store: StateStore, path: Path, snapshot: str | None, baseline: str | None
) -> None:
    """Step 4: the snapshot (and its CRDT state) and the baseline."""
    if snapshot is not None:
        store.save_snapshot(path, snapshot)
        store.save_crdt(path, encode_text_state(snapshot))
    if baseline is not None:
        store.save_baseline(path, baseline)
    crash_point("compact.state_saved")


def _archive_digest(archive: Path) -> str | None:
    try:
        return data_digest(archive.read_bytes())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"cannot read the archive {archive}: {exc}") from exc


def _undo_archive(intent: Compacting) -> None:
    """Put the archive back as it was before the compaction."""
    archive = Path(intent.archive)
    if intent.archive_size is None:
        archive.unlink(missing_ok=True)
        return
    data = archive.read_bytes()[: intent.archive_size]
    atomic_write_bytes(archive, data)


def compaction_verdict(
    intent: Compacting, archive_digest: str | None, text: str
) -> str:
    """What to do with a compaction a crash interrupted (pure): ``undo`` (the
    turns are in the archive and still in the document ``text``),
    ``complete`` (the archive holds them and the document does not) or
    ``forget`` (nothing moved; or the archive changed since, and is left).
    Turns typed into since (lines added among them) are still in the
    document while its link is not."""
    archived = archive_digest == intent.archive_after
    # a write since drops boundary markers, the moved turns may have held one
    in_document = intent.replaced in text or (
        remove_all_boundaries(intent.replaced) in remove_all_boundaries(text)
    )
    if not in_document and intent.link.strip() not in text:
        # typed into since (an inline document's turns start at its title):
        # the link never replaced them when their lines are all still there
        in_document = _lines_kept(intent.replaced, text)
    if archived and in_document:
        return "undo"
    if archived:
        return "complete"
    return "forget"


def _lines_kept(replaced: str, text: str) -> bool:
    """Whether every non-blank line of ``replaced`` is in ``text``, in order
    (lines typed between them allowed; boundary markers ignored)."""
    wanted = [ln for ln in remove_all_boundaries(replaced).splitlines() if ln.strip()]
    lines = iter(remove_all_boundaries(text).splitlines())
    return all(any(line == want for line in lines) for want in wanted)


def settle_compaction(path: Path, current: str | None = None) -> str | None:
    """Complete or undo a compaction of ``path`` a crash interrupted.

    ``current`` is the document's text (a live buffer; default the file).
    Returns ``"completed"``, ``"undone"`` or ``None`` (none was in progress,
    or it had moved nothing). Call it under the document lock.
    """
    path = Path(path)
    store = StateStore.for_document(path)
    record = load_record(store, path)
    intent = record.compacting
    if intent is None:
        return None
    text = current if current is not None else read_document(path).text
    verdict = compaction_verdict(intent, _archive_digest(Path(intent.archive)), text)
    if verdict == "undo":
        _undo_archive(intent)
        crash_point("recover.archive_restored")
    elif verdict == "complete":
        snapshot, baseline = compacted_state(store, path, intent.replaced, intent.link)
        save_compacted_state(store, path, snapshot, baseline)
    save_record(store, path, load_record(store, path).with_compacting(None))
    return {"undo": "undone", "complete": "completed"}.get(verdict)
