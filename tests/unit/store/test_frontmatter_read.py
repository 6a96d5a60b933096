"""The frontmatter read on bytes (checked a chunk at a time, or kept in a
ReadCache) parses as the whole decoded document does, and refuses what
``read_document`` refuses with the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.store import docfile
from agent_doc.store.docfile import ReadCache
from agent_doc.store.docfile import read_document
from agent_doc.store.docfile import read_frontmatter_text
from agent_doc.store.docfile import require_session_document

FRONT = b"---\nagent_doc_session: s1\nagent: claude\n---\n"
BODY = "# T\n\ncaf\u00e9 \U0001f680 \u2028 text\n".encode()
CASES = {
    "plain": FRONT + BODY,
    "no frontmatter": BODY,
    "empty": b"",
    "only frontmatter": b"---\nagent: x\n---",
    "bom": b"\xef\xbb\xbf" + FRONT + BODY,
    "crlf": (FRONT + BODY).replace(b"\n", b"\r\n"),
    "lone cr": FRONT + b"a\rb\n",
    "nul": FRONT + b"a\0b\n",
    "bad utf-8": FRONT + b"caf\xe9\n",
    "bad utf-8 late": FRONT + BODY * 40 + b"\xff\n",
    "cut character at a chunk end": FRONT + "é".encode() * 40,
    "unterminated": b"---\nagent: x\n" + BODY,
    "bad yaml": b"---\nagent: [x\n---\n" + BODY,
    "bad field": b"---\nagent_doc_format: nope\n---\n" + BODY,
    "long": FRONT + BODY * 300,
    "long unterminated": b"---\nagent: x\n" + BODY * 300,
    "close late": b"---\nagent: x\n" + b"y: 1\n" * 200 + b"---\n" + BODY,
}


def _outcome(read: object) -> object:
    try:
        return parse_frontmatter(read())  # type: ignore[operator]
    except AgentDocError as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("chunk", [7, 1 << 20])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_head_parses_as_the_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, chunk: int
) -> None:
    monkeypatch.setattr(docfile, "_STREAM_CHUNK", chunk)
    path = tmp_path / "doc.md"
    path.write_bytes(CASES[name])
    whole = _outcome(lambda: read_document(path).text)
    assert _outcome(lambda: read_frontmatter_text(path)) == whole
    assert _outcome(lambda: read_frontmatter_text(path, ReadCache())) == whole
    for reads in (None, ReadCache()):
        if isinstance(whole, tuple):  # refused the same way
            with pytest.raises(whole[0]):
                require_session_document(path, reads)
        else:
            require_session_document(path, reads)
