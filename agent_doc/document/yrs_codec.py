"""The Yrs documents the merge needs: one text per document.

:class:`TextDoc` drives pycrdt through its public API and imports it only when
a merge needs the CRDT (where both sides' edits meet).

:func:`encode_text_state` writes the Yrs v1 update of a fresh document holding
one text (what the CRDT state file stores) in plain Python: it is byte for byte
what pycrdt produces (see ``tests/unit/document/test_yrs.py``), so writing a snapshot's
CRDT state needs no pycrdt at all.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

    import pycrdt

TEXT_KEY = "content"
"""Name of the shared ``Text`` inside the document."""
STATE_CLIENT_ID = 3
"""Client id of the fresh document encoded as a saved state."""


def _varuint(value: int) -> bytes:
    """LEB128 encoding of a non-negative integer (lib0 ``writeVarUint``).

    pycrdt's ``write_var_uint`` writes the same bytes, but importing pycrdt
    costs a per-turn write 50–90 ms: the states here are pinned byte for byte
    to pycrdt's instead (``tests/unit/document/test_yrs.py``).
    """
    out = bytearray()
    while value > 0x7F:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varuint(data: bytes, pos: int) -> tuple[int, int]:
    """The LEB128 integer at ``pos`` in ``data``, and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


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
    size, pos = _read_varuint(state, len(head))
    if pos + size + 1 != len(state):
        raise ValueError("not a one-text state")
    return memoryview(state)[pos : pos + size]


class TextDoc:
    """One Yrs document with one text, through pycrdt's public API.

    ``pycrdt`` is imported here, on first use: only a merge where both sides'
    edits meet needs the CRDT (≈ 50–90 ms for the import, paid once).
    """

    def __init__(self, client_id: int, update: bytes) -> None:
        import pycrdt

        self._doc: pycrdt.Doc[Any] = pycrdt.Doc(client_id=client_id)
        self._text = self._doc.get(TEXT_KEY, type=pycrdt.Text)
        self._doc.apply_update(update)

    def replay(self, ops: list[tuple[int, int, str]]) -> None:
        """Apply ``(start, end, insert)`` edits (UTF-8 byte offsets, ascending
        on the text before the first edit) in one transaction.

        A replacement inserts first and deletes after: its text then has the
        same neighbours as a concurrent insert of the other side at that spot
        (the replaced text on its right), so the lower client id — the agent —
        reliably goes first (issue 12).
        """
        text = self._text
        with self._doc.transaction():
            shift = 0
            for start, end, insert in ops:
                at = start + shift
                size = len(insert.encode("utf-8"))
                if insert:
                    text.insert(at, insert)
                if end > start:
                    del text[at + size : at + size + end - start]
                shift += size - (end - start)

    def state(self) -> bytes:
        """The document's state vector."""
        return bytes(self._doc.get_state())

    def update_since(self, state: bytes) -> bytes:
        """What this document has that a document at ``state`` lacks."""
        return bytes(self._doc.get_update(state))

    def apply(self, update: bytes) -> None:
        """Merge an update from another document."""
        self._doc.apply_update(update)

    def text(self) -> str:
        """The current text."""
        return str(self._text)
