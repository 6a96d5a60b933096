"""A document checked against bytes known to be valid UTF-8 (the snapshot,
checked by the commit) answers what the whole check answers: the same plain
bytes, the same form, the same error naming the same line. Only the bytes
past the prefix the two share are decoded; a character cut where they part,
a file that is a cut copy of them, a bad byte, a NUL or a CR just after the
shared prefix, and chunks of any size are all checked as before."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.cycle.commit import commit_document
from agent_doc.cycle.preflight import run_preflight
from agent_doc.document.excerpt import resumed_context
from agent_doc.errors import AgentDocError
from agent_doc.errors import DocumentError
from agent_doc.errors import StateError
from agent_doc.store import docfile
from agent_doc.store.docfile import ReadCache
from agent_doc.store.docfile import read_document_form
from agent_doc.store.state import StateStore
from bench._long_docs import conversation
from bench._long_docs import type_line

PIECES = ["a", "é", "→", "😀", "\n", "\n\n", "---\n", "word ", "caf\u00e9 "]
TAILS = [b"", b"x", b"\xff", b"\x80", b"\xe2\x86", b"\0", b"\r\n", "é".encode(),
         "😀".encode()[:3], b"\xed\xa0\x80", b"\xc3"]  # fmt: skip
"""What follows the shared prefix: ASCII, bad bytes, a cut character, a
surrogate's bytes, a NUL, a CR, whole characters."""


def _outcome(read: object) -> object:
    try:
        got = read()  # type: ignore[operator]
    except AgentDocError as exc:
        return type(exc), str(exc)
    return got  # (a DocumentFile compares by its fields)


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    like=st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    cut=st.integers(0, 400),
    tail=st.lists(st.sampled_from(TAILS), max_size=3).map(b"".join),
    chunk=st.sampled_from([1, 2, 3, 5, 8, 64, 1 << 20]),
    front=st.booleans(),
)
def test_checked_against_the_snapshot_is_the_whole_check(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    like: str,
    cut: int,
    tail: bytes,
    chunk: int,
    front: bool,
) -> None:
    monkeypatch.setattr(docfile, "_STREAM_CHUNK", chunk)
    monkeypatch.setattr(docfile, "_CHECK_CHUNK", chunk)
    monkeypatch.setattr(docfile, "_COMPARE_CHUNK", chunk)
    known = (("---\nagent: x\n---\n" if front else "") + like).encode()
    data = known[: min(cut, len(known))] + tail
    path = tmp_path / "doc.md"
    path.write_bytes(data)
    whole = docfile._checked_head(path)
    event(
        f"plain: {whole is not None}, shared: {docfile._shared_prefix(data, known) > 0}"
    )
    assert docfile._checked_head(path, known) == whole
    assert _outcome(lambda: read_document_form(path, known)) == _outcome(
        lambda: read_document_form(path)
    )
    assert _outcome(lambda: ReadCache().read_plain_utf8(path, like=known)) == _outcome(
        lambda: ReadCache().read_plain_utf8(path)
    )
    assert docfile.is_utf8(data, like=known) is docfile.is_utf8(data)


@pytest.mark.parametrize(
    ("data", "like"),
    [
        ("café è".encode(), "café é".encode()),  # parts inside a character
        ("a → b".encode(), "a ↑ b".encode()),
        ("x 😀".encode(), "x 😁".encode()),
        ("café".encode(), "café and more".encode()),  # a prefix of ``like``
        ("café and more".encode(), "café".encode()),
        (b"caf\xc3", "café".encode()),  # cut inside ``like``'s é
        ("café".encode() + b"\xff", "café".encode()),
        (b"\xa9 bad first", "é".encode()),
    ],
)
def test_is_utf8_against_valid_bytes_is_the_whole_check(
    data: bytes, like: bytes
) -> None:
    """Only the bytes past the shared prefix are decoded, from the start of
    the character they part in."""
    assert docfile.is_utf8(data, like=like) is docfile.is_utf8(data)
    assert docfile.is_utf8(data) is _valid(data)


def _valid(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _committed_conversation(project: Path) -> tuple[Path, str]:
    """A long document committed with its snapshot, then a line typed."""
    store, doc = StateStore(project), project / "doc.md"
    text = "".join(conversation(80, "s1"))
    doc.write_text(text, "utf-8")
    store.save_snapshot(doc, text)
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "turns"], check=True)
    doc.write_text(type_line(text), "utf-8")
    return doc, text


def test_preflight_checks_the_document_past_the_snapshot_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit's form check and the read after the commit check the
    document against the snapshot the commit checked (only the bytes past
    their shared prefix are decoded); the gate's check stays whole."""
    doc, text = _committed_conversation(project)
    heads: list[bytes | None] = []
    checks: list[bytes | None] = []
    real_head, real_check = docfile._checked_head, docfile._check_utf8

    def head(path: Path, like: bytes | None = None) -> str | None:
        heads.append(like)
        return real_head(path, like)

    def check(path: Path, data: bytes, like: bytes | None = None) -> None:
        checks.append(like)
        real_check(path, data, like)

    monkeypatch.setattr(docfile, "_checked_head", head)
    monkeypatch.setattr(docfile, "_check_utf8", check)
    result = run_preflight(doc, settle=False, allow_network=False, excerpts=True)
    snapshot = text.encode()
    assert heads == [None, snapshot]  # the gate (whole), the commit's form
    assert checks == [snapshot]  # the read after the commit
    typed = doc.read_bytes()
    assert docfile._shared_prefix(typed, snapshot) > 0.9 * len(typed)  # not decoded
    assert result.excerpts == resumed_context(text, typed.decode())


@pytest.mark.parametrize("document", [b"fine\n", b"caf\xe9\n", None])
def test_the_documents_error_comes_before_the_snapshots(
    project: Path, document: bytes | None
) -> None:
    """A snapshot that is not UTF-8 is refused after the document's own
    error, as when the document was checked first."""
    doc = project / "doc.md"
    if document is not None:
        doc.write_bytes(document)
    snapshot = StateStore(project).snapshot_path(doc)
    snapshot.parent.mkdir(parents=True)
    snapshot.write_bytes(b"caf\xe9\n")
    expected = StateError if document == b"fine\n" else DocumentError
    with pytest.raises(expected) as caught:
        commit_document(doc)
    if document is None:
        assert "no such file" in str(caught.value)
    elif expected is DocumentError:
        assert "not valid UTF-8 (line 1)" in str(caught.value)
    else:
        assert "corrupt state file" in str(caught.value)
