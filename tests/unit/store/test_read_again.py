"""Reading a document again (under the write lock) compares it with the bytes
read before a piece at a time: the same bytes come back only when the file
still holds them, whatever changed in between."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.store import docfile
from agent_doc.store import regular_file

TEXT = "".join(f"line {i} é 😀\n" for i in range(12_000)).encode()  # > 64 KiB pieces


@pytest.fixture
def reads() -> docfile.ReadCache:
    """One command's reads (a write's: baseline, document, again under the lock)."""
    return docfile.ReadCache()


def _changed_at(data: bytes, at: int) -> bytes:
    """``data`` with the first ASCII letter from ``at`` on replaced (still UTF-8)."""
    while not data[at : at + 1].isalpha():
        at += 1
    return data[:at] + (b"X" if data[at : at + 1] != b"X" else b"Y") + data[at + 1 :]


def test_an_unchanged_file_gives_the_bytes_read_before(
    tmp_path: Path, reads: docfile.ReadCache
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT)
    first = reads.read_plain_utf8(doc)
    again = reads.read_plain_utf8(doc)
    assert first == TEXT
    assert again is first  # no second copy of the document


@pytest.mark.parametrize("at", [0, 1 << 16, (1 << 16) + 5, len(TEXT) - 20])
def test_a_byte_changed_at_the_same_size_is_read(
    tmp_path: Path, at: int, reads: docfile.ReadCache
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT)
    reads.read_plain_utf8(doc)
    changed = _changed_at(TEXT, at)
    doc.write_bytes(changed)
    assert reads.read_plain_utf8(doc) == changed
    assert reads.read_document(doc).text == changed.decode()


@pytest.mark.parametrize("size", [len(TEXT) - 1, len(TEXT) + 1, 0])
def test_a_file_of_another_size_is_read(
    tmp_path: Path, size: int, reads: docfile.ReadCache
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT)
    reads.read_document(doc)
    other = (TEXT + b"\n")[:size]
    doc.write_bytes(other)
    assert reads.read_document(doc).text == other.decode()


def test_a_file_that_grows_while_it_is_compared(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT)
    with doc.open("rb") as handle:
        assert regular_file._read_like(handle, TEXT[:-100]) == TEXT
    with doc.open("rb") as handle:
        assert regular_file._read_like(handle, TEXT + b"more") == TEXT


def test_reads_are_not_shared_between_caches(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT)
    first = docfile.ReadCache().read_plain_utf8(doc)
    other = docfile.ReadCache().read_plain_utf8(doc)
    assert first == other
    assert other is not first  # no state kept between commands
    assert docfile.read_document(doc).text is not docfile.read_document(doc).text
