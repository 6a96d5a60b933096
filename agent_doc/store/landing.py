"""The landing record of a document: which snapshot and which answers belong together.

Every answer gets an id when it is accepted (the id of the boundary marker it
lands with, spec §7.22). The id travels in the pending copy
(:meth:`~agent_doc.store.state.StateStore.save_pending`) and in this record,
one small JSON file per document (``.agent-doc/landing/<hash>.json``, written
atomically), which says at once:

- ``snapshot``: the digest of the snapshot the record vouches for;
- ``landed``: the ids of the last answers that landed (newest last);
- ``landing``: the answer being landed now — its id, the digest of its
  ``content_ours`` and of the text written to the document — saved under the
  document lock before the document is written;
- ``compacting``: a ``compact`` between its archive and its document.

An answer has landed once its id is in ``landed``: that is the commit point
of a write, and a writer asks :meth:`LandingRecord.has_landed` before it
writes, so landing twice is a no-op. The snapshot a write will save is staged
beside the record (``<hash>.next.md``) before the document is written and
renamed over the snapshot after it, so a write killed in between can be
finished without rebuilding ``content_ours``
(:mod:`agent_doc.write.landing`).
"""

from __future__ import annotations

import json

from agent_doc._runtime.record import Record
from agent_doc.document.surrogates import encode_utf8
from agent_doc.errors import StateError
from agent_doc.store.atomic import atomic_write_text
from agent_doc.store.atomic import fsync_dir
from agent_doc.store.snapshot_index import index_path
from agent_doc.store.snapshot_index import remove_index
from agent_doc.store.snapshot_index import write_indexed

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from agent_doc.document.snap_index import IndexedText
    from agent_doc.store.state import StateStore

LANDING_DIR = "landing"
"""Folder under ``.agent-doc/`` holding the landing records."""

KEEP_LANDED = 64
"""How many landed answer ids a record remembers."""


class Landing(Record):
    """An answer accepted and being written: its id and what it writes."""

    __slots__ = ("id", "ours", "final", "added")

    def __init__(
        self, id: str, ours: str, final: str | None = None, added: str | None = None
    ) -> None:
        self.id = id
        """The answer's id (its boundary marker's)."""
        self.ours = ours
        """Digest of its ``content_ours`` (what the snapshot becomes)."""
        self.final = final
        """Digest of the text written to the document (``None``: ``ours``)."""
        self.added = added
        """The lines the answer added to its baseline, kept when it lands
        without a boundary marker (an inline-format document): how ``recover``
        finds it in a text typed around since (``None``: it has a marker, or
        an older version wrote the record)."""


class Compacting(Record):
    """A ``compact`` whose archive may be written and its document not yet."""

    __slots__ = ("id", "archive", "archive_size", "archive_after", "replaced", "link")

    def __init__(
        self,
        id: str,
        archive: str,
        archive_size: int | None,
        archive_after: str,
        replaced: str,
        link: str,
    ) -> None:
        self.id = id
        self.archive = archive
        """The archive document's path."""
        self.archive_size = archive_size
        """Its size in bytes before (``None``: it did not exist)."""
        self.archive_after = archive_after
        """Digest of the archive once the turns are appended."""
        self.replaced = replaced
        """The document's text the link replaces (the older turns)."""
        self.link = link
        """The link line left in their place."""


class LandingRecord(Record):
    """The landing record of one document (see the module docstring)."""

    __slots__ = ("snapshot", "landed", "landing", "compacting")

    def __init__(
        self,
        snapshot: str | None = None,
        landed: tuple[str, ...] = (),
        landing: Landing | None = None,
        compacting: Compacting | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.landed = landed
        self.landing = landing
        self.compacting = compacting

    def has_landed(self, answer_id: str) -> bool:
        """Whether the answer ``answer_id`` has landed (crossed the commit point)."""
        return answer_id in self.landed

    def accept(self, landing: Landing | None) -> LandingRecord:
        """This record with ``landing`` being written (``None``: none)."""
        return LandingRecord(self.snapshot, self.landed, landing, self.compacting)

    def land(self, answer_id: str, snapshot: str) -> LandingRecord:
        """This record once ``answer_id`` landed with the snapshot ``snapshot``."""
        landed = (*(i for i in self.landed if i != answer_id), answer_id)
        return LandingRecord(snapshot, landed[-KEEP_LANDED:], None, self.compacting)

    def with_compacting(self, compacting: Compacting | None) -> LandingRecord:
        """This record with ``compacting`` (``None``: none in progress)."""
        return LandingRecord(self.snapshot, self.landed, self.landing, compacting)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON."""
        out: dict[str, Any] = {"snapshot": self.snapshot, "landed": list(self.landed)}
        if self.landing is not None:
            out["landing"] = _fields(self.landing)
        if self.compacting is not None:
            out["compacting"] = _fields(self.compacting)
        return out

    @classmethod
    def from_json(cls, raw: Any) -> LandingRecord:
        """The record from its JSON (``StateError`` when it is not one)."""
        try:
            landing = raw.get("landing")
            compacting = raw.get("compacting")
            return cls(
                raw.get("snapshot"),
                tuple(str(i) for i in raw.get("landed", ())),
                Landing(**landing) if landing else None,
                Compacting(**compacting) if compacting else None,
            )
        except (AttributeError, TypeError) as exc:
            raise StateError(f"corrupt landing record: {exc}") from exc


def _fields(record: Record) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__slots__}


def record_path(store: StateStore, doc: Path) -> Path:
    """``landing/<hash>.json`` of a document."""
    return store.state_dir / LANDING_DIR / f"{_hash(store, doc)}.json"


def staged_snapshot_path(store: StateStore, doc: Path) -> Path:
    """``landing/<hash>.next.md``: the snapshot a write in progress will save."""
    return store.state_dir / LANDING_DIR / f"{_hash(store, doc)}.next.md"


def _hash(store: StateStore, doc: Path) -> str:
    return store.snapshot_path(doc).stem


def load_record(store: StateStore, doc: Path) -> LandingRecord:
    """The document's landing record (an empty one when there is none)."""
    path = record_path(store, doc)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return LandingRecord()
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return LandingRecord.from_json(json.loads(data))
    except ValueError as exc:
        raise StateError(f"corrupt landing record {path}: {exc}") from exc


def compacting_records(store: StateStore) -> list[str]:
    """The document hashes whose landing record names a compaction in
    progress (read only when the record mentions one)."""
    folder = store.state_dir / LANDING_DIR
    try:
        records = sorted(folder.glob("*.json"))
    except OSError:
        return []
    found = []
    for path in records:
        try:
            if b'"compacting"' in path.read_bytes():
                found.append(path.stem)
        except OSError:
            continue
    return found


def save_record(store: StateStore, doc: Path, record: LandingRecord) -> None:
    """Store the landing record atomically (and durably)."""
    text = json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":"))
    atomic_write_text(record_path(store, doc), text)


def stage_snapshot(
    store: StateStore,
    doc: Path,
    data: bytes | str | tuple[bytes | memoryview, ...],
    previous: IndexedText | None = None,
) -> None:
    """Save the snapshot a write will land, beside the record (durable), and
    its index, carried from ``previous`` (e.g. the document the snapshot was
    built on, with its index) or else from the snapshot's."""
    data = encode_utf8(data) if isinstance(data, str) else data
    source = store.snapshot_path(doc) if previous is None else previous
    write_indexed(staged_snapshot_path(store, doc), data, source)


def promote_staged_snapshot(store: StateStore, doc: Path) -> bool:
    """Rename the staged snapshot over the snapshot (then its index over the
    snapshot's: in between, the old index no longer matches and is not
    used); ``False`` when none is staged."""
    staged, target = staged_snapshot_path(store, doc), store.snapshot_path(doc)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staged.replace(target)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StateError(f"cannot write {target}: {exc.strerror or exc}") from exc
    try:
        index_path(staged).replace(index_path(target))
    except OSError:  # none staged (a small snapshot) or unmovable: none kept
        remove_index(target)
    fsync_dir(target.parent)
    return True


def drop_staged_snapshot(store: StateStore, doc: Path) -> None:
    """Remove a staged snapshot (a write that did not land)."""
    try:
        staged_snapshot_path(store, doc).unlink(missing_ok=True)
        index_path(staged_snapshot_path(store, doc)).unlink(missing_ok=True)
    except OSError as exc:
        raise StateError(f"cannot delete a staged snapshot: {exc}") from exc
