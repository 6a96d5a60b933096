"""The disk side of a write: lock, re-read, merge the user's edits, write.

:func:`write_to_disk` is the seam's disk branch of
:func:`~agent_doc.write.pipeline.write_response`. When the file, the baseline
and content_ours are all plain UTF-8 (no BOM, ``\\n`` endings) the merge runs on
their bytes (:func:`~agent_doc.document.merge_utf8.merge_utf8_parts`): the file's
text is checked, never built, and the file and the CRDT state are written from
the merged bytes. Otherwise (a BOM, CRLF, a small text…) on ``str``.
"""

from __future__ import annotations

from functools import partial

from agent_doc._runtime.background import in_background
from agent_doc._runtime.background import wait_quietly
from agent_doc._runtime.faults import crash_point
from agent_doc.document import yrs_codec
from agent_doc.document.boundary import BOUNDARY_PREFIX
from agent_doc.document.boundary import boundary_marker
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.merge import merge_texts
from agent_doc.document.merge_utf8 import MergedUTF8
from agent_doc.document.merge_utf8 import merge_utf8_parts
from agent_doc.document.snap_index import IndexedText
from agent_doc.document.yrs_codec import utf8_state_parts
from agent_doc.store.docfile import PLAIN
from agent_doc.store.docfile import ReadCache
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.landing import accept_landing
from agent_doc.write.landing import added_lines
from agent_doc.write.landing import commit_landing
from agent_doc.write.landing import data_digest
from agent_doc.write.landing import has_landed
from agent_doc.write.landing import promote_snapshot
from agent_doc.write.outcome import WriteOutcome

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from agent_doc.document.apply_window import OursUTF8
    from agent_doc.document.snap_index import SnapIndex
    from agent_doc.store.docfile import ReadCache
    from agent_doc.store.state import StateStore


Snapshot = bytes | str | tuple[bytes | memoryview, ...]
"""A snapshot to save: its text, its UTF-8, or its UTF-8 in pieces."""


class _Answer:
    """One answer's landing steps (:mod:`agent_doc.write.landing`) around the
    document write, for a disk write."""

    __slots__ = ("added", "answer_id", "digest", "path", "previous", "store")

    def __init__(
        self,
        store: StateStore,
        path: Path,
        answer_id: str,
        digest: Callable[[], str],
        added: Callable[[], str | None],
        previous: IndexedText | None = None,
    ) -> None:
        self.store, self.path = store, path
        self.answer_id, self.digest, self.added = answer_id, digest, added
        self.previous = previous
        """What the snapshot's index is carried from (``None``: the snapshot)."""

    def accept(self, ours: Snapshot, final_digest: str | None) -> None:
        """Before the document is written: snapshot staged, landing recorded."""
        accept_landing(
            self.store, self.path, self.answer_id, ours, self.digest(),
            final_digest, self.added(), self.previous,
        )  # fmt: skip

    def written(self) -> None:
        """After the document is written."""
        crash_point("write.document_written")

    def land(self, ours: Snapshot) -> None:
        """Snapshot promoted, then the commit point."""
        promote_snapshot(self.store, self.path, ours)
        commit_landing(self.store, self.path, self.answer_id, self.digest())


def write_to_disk(
    path: Path,
    baseline: str,
    ours: str,
    store: StateStore,
    ours_data: bytes | None,
    reads: ReadCache | None = None,
    *,
    answer_id: str,
    ours_digest: Callable[[], str],
) -> WriteOutcome:
    """Lock, re-read, merge the user's concurrent edits, write atomically.

    ``ours_data`` is ``ours`` as UTF-8 (``None`` with a lone surrogate): the
    snapshot, the CRDT state and, when the file takes ``ours`` as it is, the
    document are written from it without encoding the text again.
    ``answer_id`` and ``ours_digest`` (the digest of ``ours``) are the
    answer's landing record (:mod:`agent_doc.write.landing`): under the lock,
    once the merge is done, the snapshot is staged and the landing recorded
    before the document is written; the answer lands in the record after it.
    ``reads`` is what the write read before (the document is then only
    compared with those bytes under the lock). An answer whose id has landed
    meanwhile (another process landed it) is not written again.
    """
    reads = ReadCache() if reads is None else reads
    answer = _Answer(
        store, path, answer_id, ours_digest,
        lambda: added_lines(baseline, ours, answer_id),
    )  # fmt: skip
    with doc_lock(path, root=store.root):
        if has_landed(path, answer_id, store):  # another process landed it
            ours_digest()  # (computed on another thread: waited for)
            text = read_document(path).text
            return WriteOutcome(path, ours, text, "disk", changed=False)
        theirs, base_data = reads.read_plain_utf8(path), reads.utf8_of(baseline)
        if theirs is not None and base_data is not None and ours_data is not None:
            done = _write_utf8(path, base_data, ours, ours_data, theirs, store, answer)
            if done is not None:
                return done
        return _write_text(path, baseline, ours, store, ours_data, answer, reads)


def write_pieces_to_disk(
    path: Path,
    base: bytes,
    ours: OursUTF8,
    store: StateStore,
    reads: ReadCache,
    *,
    answer_id: str,
    ours_digest: Callable[[], str],
    index: SnapIndex | None = None,
) -> WriteOutcome:
    """:func:`write_to_disk` of content_ours built on the file's UTF-8
    (:mod:`agent_doc.document.apply_window`): the baseline is ``base``, the
    file's bytes as read before (``index``: its index, when known). When the
    file still holds them, the document, the snapshot (its index carried
    from ``base``'s) and the CRDT state are written from ``ours``'s pieces
    (no text is built); otherwise (the person typed meanwhile) the texts
    are decoded and :func:`write_to_disk` merges them."""
    added = partial(_added_lines, base, ours, answer_id)
    source = IndexedText(base, index, ours.segments)
    answer = _Answer(store, path, answer_id, ours_digest, added, source)
    with doc_lock(path, root=store.root):
        if has_landed(path, answer_id, store):  # another process landed it
            ours_digest()  # (computed on another thread: waited for)
            text = read_document(path).text
            return WriteOutcome(path, ours, text, "disk", changed=False)
        if reads.read_plain_utf8(path) == base:
            pieces = ours.pieces
            changed = not _holds(base, pieces)

            def land() -> None:
                answer.accept(pieces, None)
                if changed:
                    write_document(path, PLAIN, None, pieces)
                answer.written()
                answer.land(pieces)

            _land_beside_state(store, path, utf8_state_parts(pieces), land)
            return WriteOutcome(path, ours, ours, "disk", changed=changed)
    data = ours.join()
    return write_to_disk(
        path, reads.document_of(path, base).text, data.decode("utf-8"), store,
        data, reads, answer_id=answer_id, ours_digest=ours_digest,
    )  # fmt: skip


def _added_lines(base: bytes, ours: OursUTF8, answer_id: str) -> str | None:
    """:func:`added_lines` of the texts (a stretch holds no boundary marker,
    so ``ours.window`` tells whether content_ours holds this answer's)."""
    if boundary_marker(answer_id) in ours.window:
        return None
    return added_lines(base.decode("utf-8"), ours.text(), answer_id)


def _holds(data: bytes, pieces: tuple[bytes | memoryview, ...]) -> bool:
    """Whether ``pieces`` joined are ``data``."""
    if sum(map(len, pieces)) != len(data):
        return False
    offset = 0
    for piece in pieces:
        if not data.startswith(piece, offset):
            return False
        offset += len(piece)
    return True


def _write_utf8(
    path: Path,
    base: bytes,
    ours: str,
    ours_data: bytes,
    theirs: bytes,
    store: StateStore,
    answer: _Answer,
) -> WriteOutcome | None:
    """The write when the baseline, content_ours and the file are plain UTF-8:
    merged on their bytes, the file's text never built. ``None`` (nothing
    written) when the merge needs the texts: small or unterminated texts, or
    a stale boundary marker to drop (:func:`single_boundary`)."""
    final = MergedUTF8(ours_data, [ours_data])  # the file takes ours as it is
    if theirs != base:
        merged = merge_utf8_parts(base, ours_data, theirs)
        if merged is None or merged.count(BOUNDARY_PREFIX.encode()) > 1:
            return None
        final = merged
    changed = not final.equals(theirs)
    pieces = final.pieces()
    as_merged = pieces != (ours_data,)
    final_digest = data_digest(pieces) if as_merged else None

    def land() -> None:
        answer.accept(ours_data, final_digest)
        if changed:
            write_document(path, PLAIN, None, pieces)
        answer.written()
        answer.land(ours_data)

    _land_beside_state(store, path, utf8_state_parts(pieces), land)
    return WriteOutcome(
        path=path,
        content_ours=ours,
        final_text=ours if pieces == (ours_data,) else final,
        target="disk",
        changed=changed,
        merged=theirs != base,
    )


def _write_text(
    path: Path,
    baseline: str,
    ours: str,
    store: StateStore,
    ours_data: bytes | None,
    answer: _Answer,
    reads: ReadCache,
) -> WriteOutcome:
    """The write on the texts (a BOM, CRLF, a lone surrogate, a small text…)."""
    current = read_document(path, reads)
    plain = current.newline == "\n" and not current.bom
    data: bytes | memoryview | None = None
    state: bytes | tuple[bytes | memoryview, ...]
    if current.text == baseline:
        final = ours
        if ours_data is None:
            state = yrs_codec.encode_text_state(ours)
        else:
            state = yrs_codec.utf8_state_parts(ours_data)
            data = ours_data if plain else None
    else:
        result = merge_texts(baseline, ours, current.text)
        final, state = single_boundary(result.text, ours), result.state
        if plain and final is result.text:  # the state holds its UTF-8
            data = yrs_codec.utf8_in_state(state)
    changed = final != current.text
    snapshot = ours_data if ours_data is not None else ours
    final_digest = data_digest(final) if final != ours else None

    def land() -> None:
        answer.accept(snapshot, final_digest)
        if changed:
            write_document(path, current, final, data)
        answer.written()
        answer.land(snapshot)

    _land_beside_state(store, path, state, land)
    return WriteOutcome(
        path=path,
        content_ours=ours,
        final_text=final,
        target="disk",
        changed=changed,
        merged=current.text != baseline,
    )


def _land_beside_state(
    store: StateStore,
    path: Path,
    state: bytes | tuple[bytes | memoryview, ...],
    land: Callable[[], None],
) -> None:
    """Run the landing steps (snapshot staged, document, snapshot, record)
    while another thread saves the CRDT state (not fsynced, read by no
    merge: it may be ahead of a document a crash left unwritten)."""
    state_saved = in_background(lambda: store.save_crdt(path, state))
    try:
        land()
    except BaseException:
        wait_quietly(state_saved)
        raise
    state_saved()


def single_boundary(merged: str, ours: str) -> str:
    """Keep only this write's boundary marker in a merged text.

    With a stale baseline the merge also keeps the markers of writes the
    baseline never saw; those are removed (the newest write's marker stays).
    """
    if merged.count(BOUNDARY_PREFIX) <= 1:  # at most one marker line at all
        return merged
    found = find_boundaries(merged)
    if len(found) <= 1:
        return merged
    keep = {b.id for b in find_boundaries(ours)}
    drop = [b for b in found if b.id not in keep] or found[:-1]
    if len(drop) == len(found):
        drop = drop[:-1]
    for boundary in reversed(drop):
        merged = merged[: boundary.start] + merged[boundary.end :]
    return merged
