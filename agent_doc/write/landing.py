"""Landing an answer exactly once: its durable steps, and finishing a killed write.

A write lands an answer in these steps, each durable before the next
(:mod:`agent_doc.store.landing` holds the record):

1. the pending copy, with the answer's id (``write.pending_saved``);
2. under the document lock: the snapshot staged and the record naming the
   answer as *landing* (``write.landing_recorded``);
3. the document written (``write.document_written``);
4. the staged snapshot renamed over the snapshot (``write.snapshot_saved``);
5. the id added to the record's *landed* ids — the commit point
   (``write.landed``);
6. the pending copy removed.

:func:`settle_interrupted` tells, for a pending copy a killed writer left,
whether its answer landed — its id in the record, or the document or snapshot
holding its ``content_ours``, its merged text or its boundary marker — and
then only finishes the bookkeeping; otherwise the caller lands it again (same
id). A writer asks :func:`has_landed` before it writes.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from agent_doc._runtime.digest import blake2b_256_hex
from agent_doc._runtime.digest import sha256_hex
from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.document.boundary import boundary_marker
from agent_doc.document.boundary import new_boundary_id
from agent_doc.document.textedit import common_ends
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.store.landing import Landing
from agent_doc.store.landing import LandingRecord
from agent_doc.store.landing import drop_staged_snapshot
from agent_doc.store.landing import load_record
from agent_doc.store.landing import promote_staged_snapshot
from agent_doc.store.landing import save_record
from agent_doc.store.landing import stage_snapshot
from agent_doc.store.landing import staged_snapshot_path
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.write.outcome import WriteOutcome

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.snap_index import IndexedText

declare_points(
    {
        "write.pending_saved": "the pending copy (with the answer id) is saved",
        "write.landing_recorded": "snapshot staged, record names the answer landing",
        "write.document_written": "the document holds the answer; snapshot old",
        "write.snapshot_saved": "snapshot is content_ours; record not yet landed",
        "write.landed": "the record lists the answer; the pending copy remains",
        "recover.snapshot_promoted": "a landed answer's snapshot saved by recover",
        "recover.landed": "recover recorded the landed answer; pending remains",
    }
)

_BLANK_LINES = lazy_compile(r"\n[ \t]*\n")

DIGEST_PREFIX = "blake2b:"
"""How a digest of :func:`data_digest` starts (the ``.expect`` files of older
versions hold SHA-256 hex)."""


def new_answer_id() -> str:
    """A fresh answer id (the boundary marker's id it lands with)."""
    return new_boundary_id()


def data_digest(data: bytes | str | tuple[bytes | memoryview, ...]) -> str:
    """BLAKE2b digest of a text (as UTF-8), of its bytes or of its pieces."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return DIGEST_PREFIX + blake2b_256_hex(data)


def has_landed(path: Path, answer_id: str, store: StateStore | None = None) -> bool:
    """Whether the answer ``answer_id`` has landed in ``path`` (crossed the
    commit point; writing it again must be a no-op)."""
    store = store or StateStore.for_document(Path(path))
    return load_record(store, Path(path)).has_landed(answer_id)


def added_lines(baseline: str, ours: str, answer_id: str) -> str | None:
    """The whole lines of ``ours`` that differ from ``baseline`` (first to
    last), when ``ours`` holds no boundary marker of ``answer_id``; ``None``
    when it does (the marker finds the answer) (pure)."""
    if boundary_marker(answer_id) in ours:
        return None
    prefix, suffix = common_ends(baseline, ours)
    start = ours.rfind("\n", 0, prefix) + 1
    end = ours.find("\n", len(ours) - suffix)
    return ours[start : len(ours) if end < 0 else end + 1]


def accept_landing(
    store: StateStore,
    path: Path,
    answer_id: str,
    ours: bytes | str | tuple[bytes | memoryview, ...],
    ours_digest: str,
    final_digest: str | None,
    added: str | None = None,
    previous: IndexedText | None = None,
) -> None:
    """Step 2, under the document lock: stage the snapshot, name the answer
    as landing in the record (``added``: :func:`added_lines`; ``previous``:
    what the snapshot's index is carried from, :func:`stage_snapshot`)."""
    stage_snapshot(store, path, ours, previous)
    record = load_record(store, path)
    landing = Landing(answer_id, ours_digest, final_digest, added)
    save_record(store, path, record.accept(landing))
    crash_point("write.landing_recorded")


def promote_snapshot(
    store: StateStore, path: Path, ours: bytes | str | tuple[bytes | memoryview, ...]
) -> None:
    """Step 4: the staged snapshot becomes the snapshot (saved directly when
    none is staged: a landing recorded by a language server)."""
    if not promote_staged_snapshot(store, path):
        if isinstance(ours, str):
            store.save_snapshot(path, ours)
        else:
            store.save_snapshot_data(path, ours)
    crash_point("write.snapshot_saved")


def commit_landing(
    store: StateStore, path: Path, answer_id: str, ours_digest: str
) -> None:
    """Step 5, the commit point: the answer is landed with its snapshot."""
    record = load_record(store, path)
    save_record(store, path, record.land(answer_id, ours_digest))
    crash_point("write.landed")


def record_landing(path: Path, answer_id: str, content_ours: str) -> None:
    """Stage ``content_ours`` and name ``answer_id`` as landing in ``path``'s
    record: a language server's write, just before it edits the buffer."""
    store = StateStore.for_document(Path(path))
    baseline = store.load_snapshot(Path(path)) or ""  # what the server built on
    added = added_lines(baseline, content_ours, answer_id)
    stage_snapshot(store, Path(path), content_ours)
    record = load_record(store, Path(path))
    landing = Landing(answer_id, data_digest(content_ours), None, added)
    save_record(store, Path(path), record.accept(landing))


def land_bookkeeping(path: Path, answer_id: str, content_ours: str) -> None:
    """Snapshot, CRDT state and the commit point of an answer that is in the
    buffer or file already (a server's write)."""
    store = StateStore.for_document(Path(path))
    store.save_snapshot(Path(path), content_ours)
    drop_staged_snapshot(store, Path(path))
    store.save_crdt(Path(path), encode_text_state(content_ours))
    commit_landing(store, Path(path), answer_id, data_digest(content_ours))


def _matches(text: str | None, digest: str | None) -> bool:
    if text is None or not digest:
        return False
    if digest.startswith(DIGEST_PREFIX):
        return data_digest(text) == digest
    return sha256_hex(text.encode("utf-8", "surrogatepass")) == digest


class Verdict(Record):
    """What a pending answer's state says (:func:`landing_verdict`)."""

    __slots__ = ("state", "landing", "in_snapshot")

    def __init__(
        self, state: str, landing: Landing | None = None, in_snapshot: bool = False
    ) -> None:
        self.state = state
        """``recorded`` (its id is landed in the record), ``landed`` (the
        document or snapshot holds it: bookkeeping only) or ``lost`` (nothing
        of it landed: write it again)."""
        self.landing = landing
        """The record's landing of this answer, if it names it."""
        self.in_snapshot = in_snapshot
        """The snapshot holds its content_ours already."""


def landing_verdict(
    record: LandingRecord,
    answer_id: str | None,
    text: str,
    snapshot: str | None,
    legacy: str | None = None,
    staged: str | None = None,
) -> Verdict:
    """Whether the pending answer ``answer_id`` landed (pure).

    It landed when its id is in the record, or when the snapshot holds its
    ``content_ours``, or the document's ``text`` holds ``content_ours``, the
    merged text written, or the answer's boundary marker (the person may
    have typed since), or — an answer without a marker (an inline-format
    document) the person typed around — the lines it added to its baseline
    (the landing's ``added``; an older record: every block the ``staged``
    snapshot adds to ``snapshot``). ``legacy``: the digest an older version
    saved.
    """
    if answer_id is not None and record.has_landed(answer_id):
        return Verdict("recorded")
    landing = record.landing
    if landing is not None and answer_id not in (None, landing.id):
        landing = None  # the record names another answer
    digests = [legacy] + ([landing.ours, landing.final] if landing else [])
    in_snapshot = any(_matches(snapshot, d) for d in digests)
    landed = in_snapshot or any(_matches(text, d) for d in digests)
    if landing is not None and not landed:
        landed = boundary_marker(landing.id) in text
    if landing is not None and not landed:
        landed = _without_marker_in_text(landing, text, snapshot, staged)
    return Verdict("landed" if landed else "lost", landing, in_snapshot)


def _without_marker_in_text(
    landing: Landing, text: str, snapshot: str | None, staged: str | None
) -> bool:
    """An answer without a marker found in ``text``: by the lines it added
    (an older record: by the blocks its staged snapshot adds to ``snapshot``)."""
    if landing.added is not None:
        return lines_in_text(landing.added, text)
    if staged is not None and _matches(staged, landing.ours):
        return answer_in_text(snapshot or "", staged, text)
    return False


def _staged(store: StateStore, path: Path) -> str | None:
    """The snapshot a killed write staged (``None``: none, or unreadable)."""
    try:
        return staged_snapshot_path(store, path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def answer_in_text(before: str, ours: str, text: str) -> bool:
    """Whether ``text`` holds every block of lines ``ours`` added to
    ``before`` (each whole and in one piece; blank ones aside), and there is
    at least one: the answer is there, whatever was typed around it (pure)."""
    old, new = before.splitlines(), ours.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    added = [
        "\n".join(new[j1:j2]).strip("\n")
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
    ]
    blocks = [block for block in added if block.strip()]
    lines = "\n" + "\n".join(text.splitlines()) + "\n"
    return bool(blocks) and all(f"\n{block}\n" in lines for block in blocks)


def lines_in_text(added: str, text: str) -> bool:
    """Whether ``text`` holds each paragraph of ``added`` (its runs of
    non-blank lines) whole and in order, and there is one: a merge may have
    shared a heading or a blank line with text around it (pure)."""
    paragraphs = [p.strip("\n") for p in _BLANK_LINES.split(added) if p.strip()]
    lines = "\n" + "\n".join(text.splitlines()) + "\n"
    at = 0
    for paragraph in paragraphs:
        found = lines.find(f"\n{paragraph}\n", at)
        if found < 0:
            return False
        at = found + len(paragraph) + 1
    return bool(paragraphs)


def _drop_pending(store: StateStore, path: Path, answer_id: str | None) -> None:
    """Remove the settled answer's pending copy (an older version's copy,
    which names no id, is the one settled)."""
    if answer_id is None:
        store.delete_pending(path)
    else:
        store.delete_pending_of(path, answer_id)


def settle_interrupted(
    path: Path, answer_id: str | None, current: str | None = None
) -> WriteOutcome | None:
    """Finish a pending write whose answer had landed before its writer died.

    :func:`landing_verdict` tells; when it landed only the bookkeeping is
    finished (snapshot, CRDT state, the commit point, pending cleared) and
    the outcome returned. Otherwise ``None``: nothing landed, and what the
    writer staged is undone — the caller lands the answer again (same id).
    ``current`` is a live buffer's text (default: the file's).
    """
    path = Path(path)
    store = StateStore.for_document(path)
    with doc_lock(path, root=store.root):
        record = load_record(store, path)
        text = current if current is not None else read_document(path).text
        verdict = landing_verdict(
            record, answer_id, text, store.load_snapshot(path),
            store.load_expected(path), _staged(store, path),
        )  # fmt: skip
        if verdict.state == "recorded":
            drop_staged_snapshot(store, path)
            _drop_pending(store, path, answer_id)
            ours = store.load_snapshot(path) or text
            return WriteOutcome(path, ours, text, "disk", changed=False)
        if verdict.state == "lost":
            drop_staged_snapshot(store, path)
            if verdict.landing is not None:
                save_record(store, path, record.accept(None))
            return None
        if not verdict.in_snapshot and not promote_staged_snapshot(store, path):
            store.save_snapshot(path, text)  # a legacy digest: the text is ours
        ours = store.load_snapshot(path) or text
        store.save_crdt(path, encode_text_state(ours))
        crash_point("recover.snapshot_promoted")
        done = verdict.landing.id if verdict.landing is not None else answer_id
        if done is not None:
            save_record(store, path, record.land(done, data_digest(ours)))
        crash_point("recover.landed")
        _drop_pending(store, path, answer_id)
    return WriteOutcome(path, ours, text, "disk", changed=False, merged=text != ours)
