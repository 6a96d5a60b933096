"""The per-turn commit's git objects, read and written in-process.

``preflight`` commits the previous cycle on every turn. Writing its blob, the
trees along the document's path and the commit here (a SHA-1 over
``<type> <size>\\0<body>``, zlib, one file each, as git writes loose objects)
costs about a millisecond, where ``git fast-import`` and the
``unpack-objects`` it runs for so few objects cost two processes. HEAD's
trees and the document's blob are read through one ``git cat-file --batch``
started beside ``rev-parse``. :mod:`agent_doc.cycle.gitcli` moves the branch
afterwards with a compare-and-swap ``update-ref``.

Only for SHA-1 repositories whose config asks nothing special of new object
files (group-shared permissions, fsync): :func:`can_write_loose` tells.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from agent_doc._runtime.digest import sha1_hex
from agent_doc._runtime.digest import sha256_hex
from agent_doc.cycle.gitproc import GitProcess

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

TREE_MODE = b"40000"
BLOB_MODE = b"100644"

Entry = tuple[bytes, bytes, bytes]
"""A tree entry: ``(mode, name, 20-byte id)``."""

_SPECIAL_CONFIG = ("core.sharedrepository", "core.fsync", "core.fsyncobjectfiles")


def can_write_loose(object_format: str, config: dict[str, str]) -> bool:
    """Whether loose objects written here are what git itself would write."""
    return object_format == "sha1" and not any(k in config for k in _SPECIAL_CONFIG)


def loose_level(config: dict[str, str]) -> int:
    """The zlib level git uses for loose objects (``core.looseCompression``)."""
    value = config.get("core.loosecompression", config.get("core.compression", "1"))
    try:
        level = int(value)
    except ValueError:
        return 1
    return level if -1 <= level <= 9 else 1


def object_id(kind: bytes, body: bytes, object_format: str = "sha1") -> str:
    """The id git gives ``body`` as an object of ``kind`` (``blob``, ``tree``...)."""
    raw = b"%s %d\0" % (kind, len(body)) + body
    if object_format == "sha256":
        return sha256_hex(raw)
    return sha1_hex(raw)


class ObjectReader:
    """A ``git cat-file --batch`` process: objects by full id."""

    def __init__(self, cwd: Path) -> None:
        """Start the process in ``cwd`` (its repository is the one read)."""
        self.process = GitProcess(("cat-file", "--batch"), cwd, stdin=True)
        """The ``cat-file`` process (its owner ends it)."""

    def read(self, oid: str) -> tuple[str, bytes] | None:
        """``(type, content)`` of object ``oid``; ``None`` when it is missing."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(oid.encode("ascii") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:  # "<oid> missing" (or the process is gone)
            return None
        body = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the content
        return header[1].decode("ascii"), body


def parse_tree(body: bytes, id_size: int = 20) -> list[Entry]:
    """The entries of a raw tree object (ids of ``id_size`` bytes: 32 for SHA-256)."""
    entries: list[Entry] = []
    pos = 0
    while pos < len(body):
        space = body.index(b" ", pos)
        nul = body.index(b"\0", space)
        name = body[space + 1 : nul]
        entries.append((body[pos:space], name, body[nul + 1 : nul + 1 + id_size]))
        pos = nul + 1 + id_size
    return entries


def _order(entry: Entry) -> bytes:
    """Git's tree order: names compared as bytes, a folder's as ``name/``."""
    return entry[1] + b"/" if entry[0] == TREE_MODE else entry[1]


def tree_with(entries: list[Entry], name: bytes, mode: bytes, oid: str) -> bytes:
    """A raw tree: ``entries`` with ``name`` set to ``(mode, oid)``."""
    kept = [e for e in entries if e[1] != name]
    kept.append((mode, name, bytes.fromhex(oid)))
    kept.sort(key=_order)
    return b"".join(m + b" " + n + b"\0" + i for m, n, i in kept)


class PathInTree:
    """The trees along one path in a commit's tree, and the entry at its end."""

    def __init__(
        self, reader: ObjectReader, root: str, parts: list[bytes], id_size: int = 20
    ) -> None:
        """Read the trees from ``root`` down to the folder holding ``parts[-1]``."""
        self.parts = parts
        self.levels: list[list[Entry]] = []
        oid: str | None = root
        mode: bytes | None = None
        for index in range(len(parts)):
            found = reader.read(oid) if oid is not None else None
            tree = found is not None and found[0] == "tree"
            entries = parse_tree(found[1], id_size) if found and tree else []
            self.levels.append(entries)
            oid, mode = None, None
            for kind, name, raw in entries:
                if name == parts[index] and (
                    kind == TREE_MODE or index == len(parts) - 1
                ):
                    oid, mode = raw.hex(), kind
        self.target = oid
        """The id of the entry at the path (any kind); ``None`` when absent."""
        self.target_mode = mode.decode("ascii") if mode is not None else None
        """The mode of that entry (``100644``, ``100755``, ``120000``…)."""

    def replaced(self, blob: str, write: Any, blob_mode: bytes = BLOB_MODE) -> str:
        """Write the trees with ``blob`` (``blob_mode``) at the path; return the
        new root tree's id.

        ``write(kind, body)`` writes one object and returns its id.
        """
        oid, mode = blob, blob_mode
        for depth in reversed(range(len(self.parts))):
            entries, name = self.levels[depth], self.parts[depth]
            oid = write(b"tree", tree_with(entries, name, mode, oid))
            mode = TREE_MODE
        return oid


class LooseWriter:
    """Writes loose objects into one objects folder, as git does."""

    def __init__(self, objects: Path, level: int) -> None:
        """Write into ``objects`` with zlib ``level``."""
        self._objects = objects
        self._level = level

    def write(self, kind: bytes, body: bytes) -> str:
        """Write the object (unless it exists) and return its id."""
        raw = b"%s %d\0" % (kind, len(body)) + body
        oid = sha1_hex(raw)
        folder = self._objects / oid[:2]
        final = folder / oid[2:]
        if final.exists():
            return oid
        folder.mkdir(exist_ok=True)
        temp = self._objects / f"tmp_obj_{os.getpid()}_{os.urandom(6).hex()}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(zlib.compress(raw, self._level))
            try:
                os.link(temp, final)
            except FileExistsError:
                pass  # written meanwhile by someone else: the same bytes
            except OSError:  # no hard links here: git renames too
                temp.replace(final)
        finally:
            temp.unlink(missing_ok=True)
        return oid
