"""The snapshot's index file, ``snapshots/<hash>.md.idx``, written with it.

:class:`~agent_doc.document.snap_index.SnapIndex` (neutral checkpoints every
~64 KB with their stripped line counts, where the text first names an item
list) saved beside a snapshot of at least
:data:`~agent_doc.document.snap_index.INDEX_FROM` bytes, so the per-turn
diffs scan from the last checkpoint before the change instead of byte 0.

The file is keyed to the snapshot bytes it describes without hashing them:
the snapshot's size and modification time (nanoseconds, one ``fstat`` of the
file as written or read: ``cp -a`` keeps both) and its last 64 bytes. A key
that does not match, a missing or corrupt file: no index, and the reader
scans from 0 as it would without one (never an error). Every snapshot writer
of :class:`~agent_doc.store.state.StateStore` and
:mod:`~agent_doc.store.landing` writes it (:func:`write_indexed`): the
previous snapshot's checkpoints within the prefix the two share are kept, so
only the text after the change is scanned (a whole scan when the previous
snapshot has no index). Written atomically, not fsynced: a crash can only
leave it stale or corrupt, and then it is not used.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from agent_doc.document.linediff import common_prefix
from agent_doc.document.snap_index import INDEX_FROM
from agent_doc.document.snap_index import IndexedText
from agent_doc.document.snap_index import SnapIndex
from agent_doc.document.snap_scan import NAME_MAX
from agent_doc.document.snap_scan import carried
from agent_doc.document.snap_scan import first_name
from agent_doc.document.snap_scan import index_of
from agent_doc.document.snap_scan import spliced
from agent_doc.errors import StateError
from agent_doc.store.atomic import atomic_write_bytes

__all__ = [
    "FileKey", "file_key", "index_for", "index_path", "read_indexed", "read_keyed",
    "remove_index", "write_indexed",
]  # fmt: skip

FileKey = tuple[int, int, int, int]
"""A file's inode, size, modification and change times (nanoseconds): an
atomic write (a new inode) or a write in place (a new change time, which no
one can set back) gives another key."""

_MAGIC = b"agent-doc snapshot index 2"
_MAGIC_1 = b"agent-doc snapshot index 1"
"""The format before ``names_at`` (read: its names are not known)."""
_UNKNOWN = -2
"""``names_at`` not known, as the file writes it."""
_TAIL = 64
_CHUNK = 1 << 20


def index_path(snapshot: Path) -> Path:
    """The index file of the snapshot file ``snapshot`` (``<name>.idx``)."""
    return snapshot.with_name(snapshot.name + ".idx")


def _key(data: bytes | memoryview, st: os.stat_result) -> bytes:
    tail = bytes(data[-_TAIL:]).hex().encode()
    return b"%d %d %s" % (st.st_size, st.st_mtime_ns, tail)


def file_key(st: os.stat_result) -> FileKey:
    """The :data:`FileKey` of a file's ``stat``."""
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def read_indexed(snapshot: Path) -> tuple[bytes, SnapIndex | None] | None:
    """The snapshot's bytes and, when its index file describes exactly them,
    its index; ``None`` when there is no snapshot."""
    found = read_keyed(snapshot)
    return None if found is None else found[:2]


def read_keyed(snapshot: Path) -> tuple[bytes, SnapIndex | None, FileKey] | None:
    """:func:`read_indexed`, with the :data:`FileKey` of the file read (a
    later ``stat`` with the same key: it still holds these bytes)."""
    try:
        with open(snapshot, "rb") as file:
            st = os.fstat(file.fileno())
            data = file.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"cannot read {snapshot}: {exc.strerror or exc}") from exc
    if len(data) < INDEX_FROM or len(data) != st.st_size:
        return data, None, file_key(st)
    index = _load(index_path(snapshot), _key(data, st), len(data))
    return data, index, file_key(st)


def _load(path: Path, key: bytes, size: int) -> SnapIndex | None:
    """The index in ``path`` when it is whole and keyed ``key``."""
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError:
        return None
    whole = len(lines) >= 5 and lines[-2:] == [b"end", b""]
    if not whole or lines[0] not in (_MAGIC, _MAGIC_1) or lines[1] != key:
        return None
    try:
        first = [int(n) for n in lines[2].split(b" ")]
        breaks, names = first if lines[0] == _MAGIC else (*first, _UNKNOWN)
        pairs = [tuple(map(int, line.split(b" "))) for line in lines[3:-2]]
        offsets = [p[0] for p in pairs]
        stripped = [p[1] for p in pairs]
    except (ValueError, IndexError):
        return None
    ordered = all(a < b for a, b in itertools.pairwise(offsets))
    if not offsets or offsets[0] != 0 or stripped[0] != 0 or not ordered:
        return None
    if offsets[-1] > size:
        return None
    known = names if -1 <= names < size else None
    return SnapIndex(size, offsets, stripped, breaks, known)


def write_indexed(
    target: Path,
    data: bytes | tuple[bytes | memoryview, ...],
    previous: Path | IndexedText | None = None,
) -> None:
    """Write the snapshot ``data`` (UTF-8, whole or in pieces) to ``target``
    atomically, and its index beside it. ``previous``: the snapshot file it
    replaces, or a text with its index (``None``: not known) and the
    segments of it ``data`` copies, whose checkpoints are carried over."""
    pieces = (data,) if isinstance(data, bytes) else data
    size = sum(map(len, pieces))
    index = None
    if size >= INDEX_FROM:
        try:  # (a chunk around a comment is decoded: not UTF-8, no index)
            index = _index(pieces, previous)
        except (UnicodeDecodeError, ValueError):
            pass  # no index: the readers scan from 0
    st = atomic_write_bytes(target, data)
    if index is None:
        remove_index(target)
        return
    last = _joined(pieces, max(size - _TAIL, 0))
    names = _UNKNOWN if index.names_at is None else index.names_at
    lines = [_MAGIC, _key(last, st), b"%d %d" % (index.breaks_from, names)]
    pairs = zip(index.offsets, index.stripped, strict=True)
    lines += [b"%d %d" % pair for pair in pairs]
    text = b"\n".join([*lines, b"end", b""])
    try:
        atomic_write_bytes(index_path(target), text, durable=False)
    except StateError:
        remove_index(target)  # without it the reader scans from 0


def index_for(data: bytes, snapshot: Path) -> SnapIndex | None:
    """The index of ``data`` carried from the snapshot file ``snapshot``'s
    (read a chunk at a time); ``None`` when that has none (a whole scan is
    not worth it here)."""
    if len(data) < INDEX_FROM:
        return None
    found = _shared_with_file(snapshot, (data,))
    if found is None:
        return None
    try:
        return _carried(found, (data,))
    except UnicodeDecodeError:
        return None


def _index(
    pieces: tuple[bytes | memoryview, ...], previous: Path | IndexedText | None
) -> SnapIndex:
    """The index of ``pieces`` joined, carried from ``previous`` when it has
    one (a text with CR or a BOM gets one too: the diff takes the plain path
    before it looks at it, and its neutral points are the bytes' own), with
    where it first names an item list (searched whole when the carried
    index cannot tell: an index of the format before, or a name of the old
    text's before a copied stretch)."""
    index = _carried_index(pieces, previous)
    if index.names_at is None:
        index.names_at = _first_name_of(pieces)
    return index


def _first_name_of(pieces: tuple[bytes | memoryview, ...]) -> int:
    """:func:`~agent_doc.document.snap_scan.first_name` of ``pieces`` joined,
    searched piece by piece (and across each joint), without joining them."""
    at = 0
    for piece in pieces:
        if at:  # a name across the joint with the pieces before
            lo = max(at - NAME_MAX + 1, 0)
            hit = first_name(_joined(pieces, lo, at + NAME_MAX - 1))
            if hit >= 0:
                return lo + hit
        hit = first_name(piece)
        if hit >= 0:
            return at + hit
        at += len(piece)
    return -1


def _carried_index(
    pieces: tuple[bytes | memoryview, ...], previous: Path | IndexedText | None
) -> SnapIndex:
    """:func:`_index`, but where the text names an item list may be left
    unknown."""
    found = None
    if isinstance(previous, Path):
        found = _shared_with_file(previous, pieces)
    elif previous is not None and previous.index is not None:
        if previous.segments:  # the pieces copy stretches of ``previous``
            size = sum(map(len, pieces))
            index = spliced(
                previous.index, previous.segments, size,
                lambda lo, hi: _joined(pieces, lo, hi),
            )  # fmt: skip
            if index is not None:
                return index
        found = _common_prefix(previous.data, pieces), previous.index
    return index_of(_joined(pieces, 0)) if found is None else _carried(found, pieces)


def _carried(
    found: tuple[int, SnapIndex], pieces: tuple[bytes | memoryview, ...]
) -> SnapIndex:
    same, old = found
    origin = old.checkpoint(same)[0]
    return carried(old, same, _joined(pieces, origin), origin)


def _shared_with_file(
    path: Path, pieces: tuple[bytes | memoryview, ...]
) -> tuple[int, SnapIndex] | None:
    """The length of the prefix the file ``path`` shares with ``pieces``
    joined, and the file's index; ``None`` when it has none. The file is
    compared a chunk at a time (never held whole)."""
    try:
        with open(path, "rb") as file:
            st = os.fstat(file.fileno())
            if st.st_size < INDEX_FROM:
                return None
            file.seek(st.st_size - _TAIL)
            index = _load(index_path(path), _key(file.read(_TAIL), st), st.st_size)
            if index is None:
                return None
            file.seek(0)
            same, buffer = 0, bytearray(_CHUNK)
            whole = pieces[0] if len(pieces) == 1 else None
            while size := file.readinto(buffer):
                chunk = memoryview(buffer)[:size]
                if isinstance(whole, bytes) and whole.startswith(chunk, same):
                    same += size  # (compared in place)
                    continue
                mine, theirs = bytes(chunk), _joined(pieces, same, same + size)
                if mine != theirs:
                    return same + common_prefix(mine, theirs, chunk=1 << 12), index
                same += size
            return same, index
    except OSError:
        return None


def _common_prefix(data: bytes, pieces: tuple[bytes | memoryview, ...]) -> int:
    """Length of the common prefix of ``data`` and ``pieces`` joined."""
    at = 0
    for piece in pieces:
        if data.startswith(piece, at):
            at += len(piece)
            continue
        return at + common_prefix(
            data[at : at + len(piece)], bytes(piece), chunk=1 << 16
        )
    return at


def _joined(
    pieces: tuple[bytes | memoryview, ...], start: int, end: int | None = None
) -> bytes:
    """``pieces`` joined, from byte ``start`` on (up to ``end``)."""
    out, at = [], 0
    for piece in pieces:
        if end is not None and at >= end:
            break
        if at + len(piece) > start:
            stop = len(piece) if end is None else min(end - at, len(piece))
            out.append(piece[max(start - at, 0) : stop])
        at += len(piece)
    return out[0] if len(out) == 1 and isinstance(out[0], bytes) else b"".join(out)


def remove_index(snapshot: Path) -> None:
    """Remove the index of the snapshot file ``snapshot`` (if any; best
    effort: one left behind no longer matches the snapshot's key)."""
    try:
        index_path(snapshot).unlink(missing_ok=True)
    except OSError:
        pass
