"""The disk side of a write: lock, re-read, merge the user's edits, write.

:func:`write_to_disk` is the seam's disk branch of
:func:`~agent_doc.write.pipeline.write_response`. When the file, the baseline
and content_ours are all plain UTF-8 (no BOM, ``\\n`` endings) the merge runs on
their bytes (:func:`~agent_doc.document.merge_utf8.merge_utf8`), and the file
and the CRDT state are written from the merged bytes; otherwise on ``str``.
"""

from __future__ import annotations

from agent_doc.document._static import TYPE_CHECKING
from agent_doc.write.outcome import WriteOutcome

if TYPE_CHECKING:
    from pathlib import Path

    from agent_doc.store.state import StateStore

_BOUNDARY = b"<!-- agent:boundary:"
""":data:`agent_doc.document.boundary.BOUNDARY_PREFIX` as UTF-8."""


def write_to_disk(
    path: Path, baseline: str, ours: str, store: StateStore, ours_data: bytes | None
) -> WriteOutcome:
    """Lock, re-read, merge the user's concurrent edits, write atomically.

    ``ours_data`` is ``ours`` as UTF-8 (``None`` with a lone surrogate): the
    snapshot, the CRDT state and, when the file takes ``ours`` as it is, the
    document are written from it without encoding the text again.
    """
    from agent_doc.document import _yrs
    from agent_doc.store.docfile import utf8_of
    from agent_doc.store.state import doc_lock
    from agent_doc.store.state import read_document
    from agent_doc.store.state import write_document

    with doc_lock(path, root=store.root):
        current = read_document(path)
        plain = current.newline == "\n" and not current.bom
        data: bytes | memoryview | None = None
        final: str | bytes
        state: bytes | tuple[bytes, ...]
        if current.text == baseline:
            final = ours
            if ours_data is None:
                state = _yrs.encode_text_state(ours)
            else:
                state = _yrs.utf8_state_parts(ours_data)
                data = ours_data if plain else None
            changed = final != current.text
        else:
            final, state, data = _merged(baseline, ours, current.text, ours_data, plain)
            was = current.text if isinstance(final, str) else utf8_of(current.text)
            changed = final != was
        if changed:
            write_document(
                path, current, final if isinstance(final, str) else None, data
            )
        if ours_data is None:
            store.save_snapshot(path, ours)
        else:
            store.save_snapshot_data(path, ours_data)
        store.save_crdt(path, state)
    return WriteOutcome(
        path=path,
        content_ours=ours,
        final_text=final,
        target="disk",
        changed=changed,
        merged=current.text != baseline,
    )


def _merged(
    baseline: str, ours: str, current: str, ours_data: bytes | None, plain: bool
) -> tuple[str | bytes, bytes | tuple[bytes, ...], bytes | memoryview | None]:
    """The merged document, its CRDT state, and the bytes the file takes
    (``None``: encode the text). The merged document is UTF-8 (``bytes``) when
    the merge ran on the files' bytes."""
    from agent_doc.document import _yrs
    from agent_doc.store.docfile import utf8_of

    base_data, theirs_data = utf8_of(baseline), utf8_of(current)
    usable = (base_data, ours_data, theirs_data)
    if plain and None not in usable:
        from agent_doc.document.merge_utf8 import merge_utf8

        merged = merge_utf8(*usable)  # type: ignore[arg-type]
        if merged is not None and merged.count(_BOUNDARY) <= 1:
            return merged, _yrs.utf8_state_parts(merged), merged
    from agent_doc.document.merge import merge_texts

    result = merge_texts(baseline, ours, current)
    final = single_boundary(result.text, ours)
    data = _yrs.utf8_in_state(result.state) if plain and final is result.text else None
    return final, result.state, data


def single_boundary(merged: str, ours: str) -> str:
    """Keep only this write's boundary marker in a merged text.

    With a stale baseline the merge also keeps the markers of writes the
    baseline never saw; those are removed (the newest write's marker stays).
    """
    from agent_doc.document.boundary import BOUNDARY_PREFIX
    from agent_doc.document.boundary import find_boundaries

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
