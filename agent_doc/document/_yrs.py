"""The two pycrdt calls the merge needs, without the cost of ``import pycrdt``.

``import pycrdt`` loads anyio, asyncio and ``importlib.metadata`` (≈ 50–90 ms),
and every ``pycrdt.Doc()`` creates an ``anyio.Lock`` whose async-backend probe
imports asyncio. A merge needs none of it: only the Rust extension
``pycrdt._pycrdt`` (its ``Doc``/``Text``/``Transaction``), which loads in about
1 ms. :func:`native` loads it on its own and registers it under its real name,
so a later ``import pycrdt`` in the same process reuses the same module.

:func:`encode_text_state` writes the Yrs v1 update of a fresh document holding
one text (what the CRDT state file stores) in plain Python: it is byte for byte
what pycrdt produces (see ``tests/unit/test_yrs.py``), so writing a snapshot's
CRDT state needs no pycrdt at all.
"""

from __future__ import annotations

import functools
import sys
from types import ModuleType

from agent_doc.document._static import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

TEXT_KEY = "content"
"""Name of the shared ``Text`` inside the document."""
STATE_CLIENT_ID = 3
"""Client id of the fresh document encoded as a saved state."""


def _varuint(value: int) -> bytes:
    """LEB128 encoding of a non-negative integer (lib0 ``writeVarUint``)."""
    out = bytearray()
    while value > 0x7F:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def _varstring(text: str) -> bytes:
    data = text.encode("utf-8")
    return _varuint(len(data)) + data


def encode_text_state(text: str, client_id: int = STATE_CLIENT_ID) -> bytes:
    """Yrs v1 update of a fresh document whose text ``content`` is ``text``.

    One client, one string item at clock 0 under the root ``content``, an
    empty delete set; an empty text is the empty update.
    """
    return encode_utf8_state(text.encode("utf-8"), client_id)


def encode_utf8_state(data: bytes, client_id: int = STATE_CLIENT_ID) -> bytes:
    """:func:`encode_text_state` of the text whose UTF-8 encoding is ``data``."""
    return b"".join(utf8_state_parts(data, client_id))  # one copy of the text


def utf8_state_parts(
    data: bytes | tuple[bytes | memoryview, ...], client_id: int = STATE_CLIENT_ID
) -> tuple[bytes | memoryview, ...]:
    """The pieces of :func:`encode_utf8_state` in order (``data`` itself among
    them, not copied; it may be given as its own pieces): a large state is
    written from them without joining."""
    pieces = data if isinstance(data, tuple) else (data,)
    size = sum(map(len, pieces))
    if not size:
        return (b"\x00\x00",)
    return (_state_head(client_id), _varuint(size), *pieces, b"\x00")


def _state_head(client_id: int) -> bytes:
    """What precedes the text's length in :func:`encode_utf8_state`."""
    header = b"\x01\x01" + _varuint(client_id) + b"\x00"
    return header + b"\x04\x01" + _varstring(TEXT_KEY)  # a string item under a root


def utf8_in_state(state: bytes, client_id: int = STATE_CLIENT_ID) -> memoryview:
    """The UTF-8 text inside a state made by :func:`encode_utf8_state` (a view,
    not a copy). Raises ``ValueError`` for any other update."""
    if state == b"\x00\x00":
        return memoryview(b"")
    head = _state_head(client_id)
    if not state.startswith(head):
        raise ValueError("not a one-text state")
    size, pos = 0, len(head)
    shift = 0
    while True:  # the LEB128 length
        byte = state[pos]
        pos += 1
        size |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    if pos + size + 1 != len(state):
        raise ValueError("not a one-text state")
    return memoryview(state)[pos : pos + size]


@functools.cache
def native() -> ModuleType:
    """The ``pycrdt._pycrdt`` extension, loaded without the ``pycrdt`` package."""
    loaded = sys.modules.get("pycrdt._pycrdt")
    if loaded is not None:
        return loaded
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    package = importlib.util.find_spec("pycrdt")
    if package is None or not package.submodule_search_locations:
        raise ImportError("pycrdt is not installed")
    folder = Path(next(iter(package.submodule_search_locations)))
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    found = [folder / f"_pycrdt{s}" for s in suffixes]
    path = next((p for p in found if p.is_file()), None)
    if path is None:  # an unusual layout: let the package find it
        import pycrdt._pycrdt as module

        return module
    loader = importlib.machinery.ExtensionFileLoader("pycrdt._pycrdt", str(path))
    spec = importlib.util.spec_from_file_location("pycrdt._pycrdt", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["pycrdt._pycrdt"] = module
    return module


class TextDoc:
    """One Yrs document with one text, driven through the native extension."""

    def __init__(self, client_id: int, update: bytes) -> None:
        self._doc: Any = native().Doc(client_id, None, None)
        txn = self._doc.create_transaction()
        try:
            self._text: Any = self._doc.get_or_insert_text(txn, TEXT_KEY)
            self._doc.apply_update(txn, update)
            txn.commit()
        finally:
            txn.drop()

    def replay(self, ops: list[tuple[int, int, str]]) -> None:
        """Apply ``(start, end, insert)`` edits (UTF-8 byte offsets, ascending
        on the text before the first edit) in one transaction.

        A replacement inserts first and deletes after: its text then has the
        same neighbours as a concurrent insert of the other side at that spot
        (the replaced text on its right), so the lower client id — the agent —
        reliably goes first (issue 12).
        """
        text = self._text
        txn = self._doc.create_transaction()
        try:
            shift = 0
            for start, end, insert in ops:
                at = start + shift
                size = len(insert.encode("utf-8"))
                if insert:
                    text.insert(txn, at, insert)
                if end > start:
                    text.remove_range(txn, at + size, end - start)
                shift += size - (end - start)
            txn.commit()
        finally:
            txn.drop()

    def state(self) -> bytes:
        """The document's state vector."""
        txn = self._doc.create_transaction()
        try:
            return bytes(self._doc.get_state(txn))
        finally:
            txn.drop()

    def update_since(self, state: bytes) -> bytes:
        """What this document has that a document at ``state`` lacks."""
        txn = self._doc.create_transaction()
        try:
            return bytes(self._doc.get_update(txn, state))
        finally:
            txn.drop()

    def apply(self, update: bytes) -> None:
        """Merge an update from another document."""
        txn = self._doc.create_transaction()
        try:
            self._doc.apply_update(txn, update)
            txn.commit()
        finally:
            txn.drop()

    def text(self) -> str:
        """The current text."""
        txn = self._doc.create_transaction()
        try:
            return str(self._text.get_string(txn))
        finally:
            txn.drop()
