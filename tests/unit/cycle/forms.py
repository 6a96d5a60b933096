"""A document written in one of the forms the fast paths must treat as the
plain ones do: plain UTF-8, CRLF line ends, or a byte order mark."""

from __future__ import annotations

from pathlib import Path

from agent_doc.store.state import StateStore

FORMS = ["plain", "crlf", "bom"]


def write_in_form(doc: Path, text: str, form: str, snapshot: str | None) -> Path:
    """Write ``text`` to ``doc`` in ``form`` and, given one, its snapshot."""
    data = text.encode()
    if form == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif form == "bom":
        data = b"\xef\xbb\xbf" + data
    doc.write_bytes(data)
    if snapshot is not None:
        StateStore.for_document(doc).save_snapshot(doc, snapshot)
    return doc
