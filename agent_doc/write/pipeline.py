"""The write path: an agent response lands in the document, never losing user text.

One function, :func:`write_response`, serves ``agent-doc write``, ``recover`` and
the agent cycle. Its steps (spec §7.22, architecture "writing.py"):

1. validate (non-empty response, readable UTF-8 document);
2. save the response as *pending* before anything else is written;
3. baseline = the explicit one, else the live buffer of a language server that
   has the document open, else the file;
4. ``content_ours`` = baseline + response (:func:`patching.build_content_ours`);
5. **the seam**: a server that has the document open merges ``content_ours``
   with its live buffer and applies one workspace edit (the file is not
   written); otherwise the disk path: lock, re-read, CRDT merge when the file
   changed since the baseline, skip identical writes, atomic write;
6. snapshot = ``content_ours`` (never the merged text, so the user's concurrent
   edits show up in the next diff), CRDT state saved, pending cleared.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from agent_doc._runtime.background import in_background
from agent_doc._runtime.background import wait_quietly
from agent_doc._runtime.digest import blake2b_256_hex
from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.lazy import lazy_logger
from agent_doc.document import apply_window
from agent_doc.document.apply import build_content_ours
from agent_doc.document.apply_window import block_warnings_utf8
from agent_doc.document.apply_window import ours_utf8
from agent_doc.document.backlog_ops import refuse_item_list_blocks
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.patch_blocks import patch_block_warnings
from agent_doc.errors import PatchError
from agent_doc.store.docfile import ReadCache
from agent_doc.store.snapshot_index import index_for
from agent_doc.store.state import StateStore
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.write.disk import write_pieces_to_disk
from agent_doc.write.disk import write_to_disk
from agent_doc.write.landing import data_digest
from agent_doc.write.landing import has_landed
from agent_doc.write.landing import land_bookkeeping
from agent_doc.write.landing import new_answer_id
from agent_doc.write.landing import record_landing
from agent_doc.write.landing import settle_interrupted
from agent_doc.write.outcome import WriteOutcome as WriteOutcome
from agent_doc.write.outcome import WriteRequest as WriteRequest
from agent_doc.write.outcome import normalize_text
from agent_doc.write.server_link import ServerLink

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.store.docfile import DocumentFile
    from agent_doc.store.docfile import ReadCache
    from agent_doc.store.state import StateStore
    from agent_doc.write.server_link import ServerHandle
    from agent_doc.write.server_link import ServerLink

logger = lazy_logger(__name__)


def read_baseline_file(path: Path, reads: ReadCache | None = None) -> str:
    """Read a ``--baseline-file`` (UTF-8, BOM/CRLF normalised)."""
    return read_document(Path(path), reads).text


def _log_origin(store: StateStore, path: Path, origin: str) -> None:
    logs = store.state_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with (logs / "ops.log").open("a", encoding="utf-8") as log:
        log.write(f"{stamp} write_origin file={path} origin={origin}\n")


def write_response(
    request: WriteRequest,
    link: ServerLink | None = None,
    *,
    on_written: Callable[[WriteOutcome], None] | None = None,
    reads: ReadCache | None = None,
) -> WriteOutcome:
    """Write an agent response into a document (see the module docstring).

    Parameters
    ----------
    request:
        The response and how to write it.
    link:
        Where to look for a language server that has the document open;
        ``None`` writes to disk.
    on_written:
        Called with the outcome after a successful write (post-write hooks).
    reads:
        What this write already read (the baseline file); a new
        :class:`~agent_doc.store.docfile.ReadCache` otherwise. It lives as long
        as this write.

    Raises
    ------
    PatchError
        Empty response or a response that cannot be applied.
    DocumentError
        The document is missing, a folder, not UTF-8, or malformed.
    ServerTimeout
        A server has the document open but could not apply in time (exit 75);
        nothing was written and the response stays pending.
    """
    path = Path(request.path)
    if not request.response.strip():
        raise PatchError("empty response — nothing to write")
    refuse_item_list_blocks(request.response)  # before pending: nothing kept
    reads = ReadCache() if reads is None else reads
    disk = _checked_document(path, reads)
    root = project_root_for(path)
    store = StateStore(root)
    if request.answer_id is None:
        request.answer_id = new_answer_id()
    elif has_landed(path, request.answer_id, store):  # landing is idempotent
        store.delete_pending_of(path, request.answer_id)  # only its own copy
        return _already_landed(path, store, reads)
    _land_orphan(path, request.answer_id, store, link)
    store.save_pending(path, request.response, request.answer_id)
    crash_point("write.pending_saved")
    outcome = _write_after_pending(request, link, path, disk, store, reads)
    store.delete_pending_of(path, request.answer_id)
    if request.origin:
        _log_origin(store, path, request.origin)
    if on_written is not None:
        on_written(outcome)
    return outcome


def _write_after_pending(
    request: WriteRequest,
    link: ServerLink | None,
    path: Path,
    disk: DocumentFile | bytes,
    store: StateStore,
    reads: ReadCache,
) -> WriteOutcome:
    """:func:`write_response` once the pending response is saved."""
    handle = None
    if link is not None and not request.force_disk:
        handle = link.find_owner(path)
    if request.baseline is not None:
        baseline = normalize_text(request.baseline)
    elif handle is not None:
        baseline = normalize_text(handle.text)
    elif isinstance(disk, bytes):
        done = _write_window(request, link, path, disk, store, reads)
        if done is not None:
            return done
        baseline = reads.document_of(path, disk).text
    else:
        baseline = disk.text
    if handle is not None and link is not None:
        # hand-off: the server builds content_ours (once) and records its
        # digest before it edits the buffer; no patch parsing or CRDT here
        return _write_to_server(request, link, handle, baseline)

    configs = load_component_configs(store.root)
    answer_id = request.answer_id or new_answer_id()
    ours = build_content_ours(
        baseline, request.response, configs, boundary_id=answer_id
    )
    for warning in patch_block_warnings(request.response, baseline):
        logger.warning("warning: %s", warning)  # one stderr line per bad block
    ours_data = _utf8(ours)  # encoded once: digest, snapshot, CRDT state, file
    # hashed on another thread while the file is locked, read again and merged;
    # the digest is saved before the document or the snapshot is written
    digest = in_background(lambda: text_digest(ours, ours_data))
    try:
        if link is not None and link.gone:
            logger.warning(gone_server_notice(path, link.gone[0].pid))
        return write_to_disk(
            path,
            baseline,
            ours,
            store,
            ours_data,
            reads,
            answer_id=answer_id,
            ours_digest=digest,
        )
    except BaseException:
        wait_quietly(digest)
        raise


def _write_window(
    request: WriteRequest,
    link: ServerLink | None,
    path: Path,
    base: bytes,
    store: StateStore,
    reads: ReadCache,
) -> WriteOutcome | None:
    """The disk write on the file's UTF-8 (``base``, read before the pending
    copy was saved), the answer applied around its markers only
    (:func:`~agent_doc.document.apply_window.ours_utf8`); ``None`` when only
    the plain path can build content_ours (a small document…)."""
    if len(base) < apply_window.WINDOW_FROM:
        return None  # (before the configs are read: the plain path reads them)
    configs = load_component_configs(store.root)
    answer_id = request.answer_id or new_answer_id()
    index = index_for(base, store.snapshot_path(path))  # its blocks
    ours = ours_utf8(
        base, request.response, configs, boundary_id=answer_id, snap_index=index
    )
    if ours is None:
        return None
    for warning in block_warnings_utf8(request.response, base):
        logger.warning("warning: %s", warning)  # one stderr line per bad block
    digest = in_background(lambda: data_digest(ours.pieces))
    try:
        if link is not None and link.gone:
            logger.warning(gone_server_notice(path, link.gone[0].pid))
        return write_pieces_to_disk(
            path, base, ours, store, reads,
            answer_id=answer_id, ours_digest=digest, index=index,
        )  # fmt: skip
    except BaseException:
        wait_quietly(digest)
        raise


def _land_orphan(
    path: Path, answer_id: str, store: StateStore, link: ServerLink | None
) -> None:
    """Land the pending answer another write left (killed, or still running)
    before this one's pending copy takes its place: it is never overwritten
    unlanded. Its own id keeps it from landing twice."""
    found = store.load_pending_answer(path)
    if found is None or found[1] == answer_id or not found[0].strip():
        return
    response, orphan_id = found
    if orphan_id is None:  # an older version's copy: it gets its id now
        orphan_id = new_answer_id()
        store.save_pending(path, response, orphan_id)
    if settle_interrupted(path, orphan_id) is None:
        orphan = WriteRequest(path, response, origin="recover", answer_id=orphan_id)
        write_response(orphan, link)


def _already_landed(path: Path, store: StateStore, reads: ReadCache) -> WriteOutcome:
    """The outcome of a write whose answer had landed already: nothing written."""
    text = read_document(path, reads).text
    ours = store.load_snapshot(path) or text
    return WriteOutcome(path, ours, text, "disk", changed=False, merged=text != ours)


def _checked_document(path: Path, reads: ReadCache) -> DocumentFile | bytes:
    """Check the document can be written (an existing, regular, UTF-8 file)
    before any state is: its bytes when they are plain UTF-8 (checked without
    building the text), else its text."""
    data = reads.read_plain_utf8(path, again=False)  # as the command read it
    return data if data is not None else read_document(path, reads)


def gone_server_notice(path: Path, pid: int) -> str:
    """The one stderr line of a disk write after a language server vanished."""
    return (
        f"agent-doc: language server {pid} is gone (crashed?); an editor may "
        f"hold unsaved text of {path.name} — writing to disk"
    )


DIGEST_PREFIX = "blake2b:"
"""How a digest written by :func:`text_digest` starts (older ones: SHA-256 hex)."""


def text_digest(text: str, data: bytes | None = None) -> str:
    """BLAKE2b digest of ``text`` as UTF-8: the pending write's expected content_ours.

    ``data`` is ``text`` already encoded as UTF-8, when the caller has it.
    BLAKE2b hashes a large document in a third of the time SHA-256 takes.
    """
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    return DIGEST_PREFIX + blake2b_256_hex(data)


def _utf8(text: str) -> bytes | None:
    """``text`` as UTF-8, or ``None`` when it holds a lone surrogate."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def record_expected(path: Path, content_ours: str) -> None:
    """Note the content_ours a pending write of ``path`` is about to land.

    Called by a language server that builds content_ours for a hand-off
    (``agent-doc write`` sent it the response) just before it edits the
    buffer: the landing record names the pending answer's id (one is given
    to a pending copy that names none) and stages content_ours, so if the CLI
    dies before it clears the pending response, :func:`finish_interrupted`
    recognises the landed write and ``recover`` does not apply it a second
    time. Without a pending response this is a no-op.
    """
    store = StateStore.for_document(Path(path))
    found = store.load_pending_answer(Path(path))
    if found is None:
        return
    response, answer_id = found
    if answer_id is None:
        answer_id = new_answer_id()
        store.save_pending(Path(path), response, answer_id)
    record_landing(Path(path), answer_id, content_ours)


def finish_interrupted(
    path: Path, current: str | None = None, answer_id: str | None = None
) -> WriteOutcome | None:
    """Finish a pending write that had landed before its process died.

    A write killed after the document was written (or after the snapshot was
    saved) leaves its response pending; replaying it would add the answer
    twice. When the answer ``answer_id`` (default: the pending copy's) is in
    the landing record, or the snapshot or the current text (``current``: a
    live buffer; default the file) holds what the write landed, only the
    bookkeeping is finished and the outcome is returned; otherwise ``None``
    (the response must be re-applied; see :func:`settle_interrupted`).
    """
    path = Path(path)
    if answer_id is None:
        found = StateStore.for_document(path).load_pending_answer(path)
        answer_id = found[1] if found is not None else None
    return settle_interrupted(path, answer_id, current)


def _write_to_server(
    request: WriteRequest,
    link: ServerLink,
    handle: ServerHandle,
    baseline: str,
) -> WriteOutcome:
    """Hand the response to the server that owns the live buffer."""
    answer_id = request.answer_id or new_answer_id()
    reply = link.write(handle, request.response, baseline, request.origin, answer_id)
    for warning in reply.warnings:  # the server checked the patch blocks
        logger.warning("warning: %s", warning)  # one stderr line per bad block
    if handle.others:
        link.notify_stale(handle)
    ours = normalize_text(reply.content_ours)
    land_bookkeeping(Path(request.path), answer_id, ours)
    final = normalize_text(reply.text)
    return WriteOutcome(
        path=Path(request.path),
        content_ours=ours,
        final_text=final,
        target="server",
        changed=final != normalize_text(handle.text),
        merged=final != ours,
        room_on_save=reply.room_on_save,
    )


def run_write(
    path: Path,
    response: str,
    *,
    baseline_file: Path | None = None,
    stream: bool = False,
    force_disk: bool = False,
    origin: str | None = None,
    reads: ReadCache | None = None,
) -> WriteOutcome:
    """``agent-doc write``: build the request, find a server, write.

    The one core call shared by the typer command and the fast path in
    :mod:`agent_doc.cli.entry`; ``reads`` is what the command read already.
    """

    reads = ReadCache() if reads is None else reads  # bytes serve the disk merge
    baseline = read_baseline_file(baseline_file, reads) if baseline_file else None
    request = WriteRequest(Path(path), response, baseline, stream, force_disk, origin)
    if force_disk:
        return write_response(request, None, reads=reads)

    return write_response(request, ServerLink(), reads=reads)
