"""The disk side of a write: lock, re-read, merge the user's edits, write.

:func:`write_to_disk` is the seam's disk branch of
:func:`~agent_doc.write.pipeline.write_response`. When the file, the baseline
and content_ours are all plain UTF-8 (no BOM, ``\\n`` endings) the merge runs on
their bytes (:func:`~agent_doc.document.merge_utf8.merge_utf8_parts`): the file's
text is checked, never built, and the file and the CRDT state are written from
the merged bytes. Otherwise (a BOM, CRLF, a small text…) on ``str``.
"""

from __future__ import annotations

from agent_doc._runtime.background import in_background
from agent_doc._runtime.background import wait_quietly
from agent_doc.document import _yrs
from agent_doc.document._yrs import utf8_state_parts
from agent_doc.document.boundary import BOUNDARY_PREFIX
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.merge import merge_texts
from agent_doc.document.merge_utf8 import MergedUTF8
from agent_doc.document.merge_utf8 import merge_utf8_parts
from agent_doc.store.docfile import PLAIN
from agent_doc.store.docfile import ReadCache
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.outcome import WriteOutcome

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from agent_doc.store.docfile import ReadCache
    from agent_doc.store.state import StateStore


def write_to_disk(
    path: Path,
    baseline: str,
    ours: str,
    store: StateStore,
    ours_data: bytes | None,
    reads: ReadCache | None = None,
    *,
    before_write: Callable[[], object] = lambda: None,
) -> WriteOutcome:
    """Lock, re-read, merge the user's concurrent edits, write atomically.

    ``ours_data`` is ``ours`` as UTF-8 (``None`` with a lone surrogate): the
    snapshot, the CRDT state and, when the file takes ``ours`` as it is, the
    document are written from it without encoding the text again.
    ``before_write`` runs under the lock once the merge is done, before the
    document or any state is written (it saves the expected digest).
    ``reads`` is what the write read before (the document is then only
    compared with those bytes under the lock).
    """
    reads = ReadCache() if reads is None else reads
    with doc_lock(path, root=store.root):
        theirs, base_data = reads.read_plain_utf8(path), reads.utf8_of(baseline)
        if theirs is not None and base_data is not None and ours_data is not None:
            done = _write_utf8(
                path, base_data, ours, ours_data, theirs, store, before_write
            )
            if done is not None:
                return done
        return _write_text(path, baseline, ours, store, ours_data, before_write, reads)


def _write_utf8(
    path: Path,
    base: bytes,
    ours: str,
    ours_data: bytes,
    theirs: bytes,
    store: StateStore,
    before_write: Callable[[], object],
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
    before_write()
    if changed:
        write_document(path, PLAIN, None, pieces)
    _save_snapshot_and_state(store, path, ours_data, utf8_state_parts(pieces))
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
    before_write: Callable[[], object],
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
            state = _yrs.encode_text_state(ours)
        else:
            state = _yrs.utf8_state_parts(ours_data)
            data = ours_data if plain else None
    else:
        result = merge_texts(baseline, ours, current.text)
        final, state = single_boundary(result.text, ours), result.state
        if plain and final is result.text:  # the state holds its UTF-8
            data = _yrs.utf8_in_state(state)
    changed = final != current.text
    before_write()
    if changed:
        write_document(path, current, final, data)
    snapshot = ours_data if ours_data is not None else ours
    _save_snapshot_and_state(store, path, snapshot, state)
    return WriteOutcome(
        path=path,
        content_ours=ours,
        final_text=final,
        target="disk",
        changed=changed,
        merged=current.text != baseline,
    )


def _save_snapshot_and_state(
    store: StateStore,
    path: Path,
    snapshot: bytes | str,
    state: bytes | tuple[bytes | memoryview, ...],
) -> None:
    """Save the snapshot (durable) and, meanwhile on another thread, the CRDT
    state (both after the document: a reader never sees a snapshot newer than
    the file)."""
    state_saved = in_background(lambda: store.save_crdt(path, state))
    try:
        if isinstance(snapshot, bytes):
            store.save_snapshot_data(path, snapshot)
        else:
            store.save_snapshot(path, snapshot)
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
