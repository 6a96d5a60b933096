"""A document checked against bytes known to be valid UTF-8 (the snapshot,
checked by the commit) answers what the whole check answers: the same plain
bytes, the same form, the same error naming the same line. Only the bytes
past the prefix the two share are decoded; a character cut where they part,
a file that is a cut copy of them, a bad byte, a NUL or a CR just after the
shared prefix, and chunks of any size are all checked as before."""

from __future__ import annotations

import json
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
from agent_doc.document.linediff import common_prefix
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
LIKE = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
"""A text like a document's: the shared prefix's source."""
CUT = st.integers(0, 400)
"""Where the document stops sharing it."""
TAIL = st.lists(st.sampled_from(TAILS), max_size=3).map(b"".join)
"""What the document holds after it."""


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
    like=LIKE,
    cut=CUT,
    tail=TAIL,
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
    reads = ReadCache()  # the prefix the check compared, lent to later steps
    read = _outcome(lambda: reads.read_plain_utf8(path, like=known))
    if isinstance(read, bytes):
        assert reads.shared_prefix(read, known) == common_prefix(known, read)
        if len(known) > 1:  # (an empty or one-byte bytes is a shared object)
            assert reads.shared_prefix(read, bytes(bytearray(known))) is None
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

    def check(path: Path, data: bytes, like: bytes | None = None) -> int:
        checks.append(like)
        return real_check(path, data, like)

    monkeypatch.setattr(docfile, "_checked_head", head)
    monkeypatch.setattr(docfile, "_check_utf8", check)
    result = run_preflight(doc, settle=False, allow_network=False, excerpts=True)
    snapshot = text.encode()
    assert heads == [None]  # the gate (whole); nothing to commit: no form check
    assert checks == [snapshot]  # the read after the commit
    typed = doc.read_bytes()
    assert docfile._shared_prefix(typed, snapshot) > 0.9 * len(typed)  # not decoded
    assert result.excerpts == resumed_context(text, typed.decode())


def test_a_commit_checks_the_documents_form_past_the_snapshot(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit (not "nothing to commit") reads how the document is stored,
    checked past the prefix it shares with the snapshot it commits."""
    doc, text = _committed_conversation(project)
    answered = (type_line(text) + "An answer.\n").encode()
    StateStore(project).save_snapshot_data(doc, answered)
    heads: list[bytes | None] = []
    real_head = docfile._checked_head

    def head(path: Path, like: bytes | None = None) -> str | None:
        heads.append(like)
        return real_head(path, like)

    monkeypatch.setattr(docfile, "_checked_head", head)
    assert commit_document(doc)[0] is True
    assert heads == [answered]


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


SNAPSHOTS = [None, "valid", "not UTF-8"]


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    like=LIKE,
    cut=CUT,
    tail=TAIL,
    snapshot=st.sampled_from(SNAPSHOTS),
)
def test_the_gate_with_the_snapshot_is_the_gate_without(
    project: Path, like: str, cut: int, tail: bytes, snapshot: str | None
) -> None:
    """``preflight``'s gate that reads the snapshot first (and checks the
    document past their shared prefix only) answers what the plain gate
    answers — the same frontmatter or the same error — and never fails on
    the snapshot's account."""
    from agent_doc.cli.commands._fast_turn import gate_front
    from agent_doc.document.snapshot_scan import SnapshotScan

    known = ("---\nagent_doc_session: s1\n---\n" + like).encode()
    doc = project / "doc.md"
    doc.write_bytes(known[: min(cut, len(known))] + tail)
    path = StateStore(project).snapshot_path(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if snapshot is not None:
        path.write_bytes(known if snapshot == "valid" else known + b"\xff")
    scan = SnapshotScan()
    assert _outcome(lambda: gate_front(doc, scan)) == _outcome(lambda: gate_front(doc))
    assert scan.checked is (snapshot == "valid")
    assert scan.data == (known if snapshot == "valid" else None)


def _spy_checks(monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[object]]:
    """The ``like`` of every chunked check of the document, and every
    snapshot checked as UTF-8 by the commit module."""
    from agent_doc.cycle import commit

    heads: list[object] = []
    checked: list[object] = []
    real_head, real_utf8 = docfile._checked_head, commit.is_utf8

    def head(path: Path, like: bytes | None = None) -> str | None:
        heads.append(like)
        return real_head(path, like)

    def utf8(data: bytes) -> bool:
        checked.append(data)
        return real_utf8(data)

    monkeypatch.setattr(docfile, "_checked_head", head)
    monkeypatch.setattr(commit, "is_utf8", utf8)
    return heads, checked


@pytest.mark.parametrize("rewritten", [False, True])
def test_preflights_gate_checks_the_snapshot_once_for_the_commit(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rewritten: bool,
) -> None:
    """Through the CLI: the gate checks the snapshot, then the document past
    their shared prefix; the commit takes the gate's snapshot unless its
    file changed in between (here the recovery rewrites it: read and checked
    again). The JSON is the plain one either way."""
    from agent_doc.cli.commands._fast_turn import run_turn_command
    from agent_doc.cycle import preflight

    doc, text = _committed_conversation(project)
    store = StateStore(project)
    if rewritten:
        real_recover = preflight.recover_pending

        def recover(path: Path, link: object) -> object:
            store.save_snapshot(doc, text)  # the same text, another file
            return real_recover(path, link)  # type: ignore[arg-type]

        monkeypatch.setattr(preflight, "recover_pending", recover)
    heads, checked = _spy_checks(monkeypatch)
    monkeypatch.chdir(project)
    assert run_turn_command(["preflight", "doc.md", "--no-wait", "--excerpts"]) == 0
    out = capsys.readouterr().out
    snapshot = text.encode()
    assert heads == [snapshot]  # the gate, past the snapshot's prefix
    assert checked == [snapshot] * (2 if rewritten else 1)
    excerpts = json.loads(out)["excerpts"]
    assert excerpts == resumed_context(text, doc.read_text("utf-8"))
