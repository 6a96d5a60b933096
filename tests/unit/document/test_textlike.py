"""ChunkView reads like the ``str`` it stands for, without joining it."""

from __future__ import annotations

import sys
from itertools import pairwise

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.linediff import split_lines
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import contains
from agent_doc.document.textlike import decoded_like
from agent_doc.document.textlike import decoded_pieces
from agent_doc.document.textlike import line_starts_array
from agent_doc.document.textlike import same_text
from agent_doc.document.textlike import whole

ALPHABET = st.sampled_from(["a", "b", "\n", "<", "!", "-", "é", "🚀", "\r"])
texts = st.lists(ALPHABET, max_size=60).map("".join)


@st.composite
def chunked(draw: st.DrawFn, text: str) -> ChunkView:
    """``text`` cut at random places (no empty chunk, as ChunkedText keeps)."""
    cuts = sorted(set(draw(st.lists(st.integers(1, max(len(text) - 1, 1))))))
    bounds = [0, *(c for c in cuts if c < len(text)), len(text)]
    pieces = [text[a:b] for a, b in pairwise(bounds) if b > a]
    return ChunkView(pieces or [""])


@settings(max_examples=400, deadline=None)
@given(text=texts, data=st.data())
def test_a_view_answers_as_its_text(text: str, data: st.DataObject) -> None:
    view = data.draw(chunked(text))
    assert len(view) == len(text)
    for _ in range(5):
        a = data.draw(st.integers(-3, len(text) + 3))
        b = data.draw(st.integers(-3, len(text) + 3))
        assert view[a:b] == text[a:b]
        assert view[a:] == text[a:]
        start = data.draw(st.integers(0, len(text) + 2))
        prefix = text[a:b] if data.draw(st.booleans()) else data.draw(texts)
        assert view.startswith(prefix, start) == text.startswith(prefix, start)
        sub = text[a:b] if data.draw(st.booleans()) else data.draw(texts)
        assert contains(view, sub) == (sub in text)
        other = text if data.draw(st.booleans()) else data.draw(texts)
        assert same_text(view, other) == (text == other)
    if text:
        at = data.draw(st.integers(-len(text), len(text) - 1))
        assert view[at] == text[at]
    assert view.joined is None  # none of the above joined it
    assert str(view) == text
    assert view.joined is not None
    assert view[::2] == text[::2]


def test_the_join_is_made_once_and_reported() -> None:
    view = ChunkView(["ab", "c🚀", "\nd"])
    seen: list[str] = []
    view.when_joined(seen.append)
    first = str(view)
    assert str(view) is first
    assert seen == ["abc🚀\nd"]
    assert seen[0] is first


@settings(max_examples=300, deadline=None)
@given(text=texts, other=texts, size=st.integers(1, 12), data=st.data())
def test_pieces_decoded_one_by_one_read_as_the_text(
    text: str, other: str, size: int, data: st.DataObject
) -> None:
    """A snapshot decoded piece by piece (the language server's form) reads
    as the whole decode; two views compare as their texts; line starts and a
    join for a scan come from the pieces and the join is not kept."""
    view = decoded_pieces(text.encode(), size)
    assert view.joined is None
    assert whole(view) == text
    assert view.joined is None
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    assert list(line_starts_array(view)) == starts == list(line_starts_array(text))
    if data.draw(st.booleans()):
        other = text
    assert same_text(view, data.draw(chunked(other))) == (text == other)
    assert same_text(text, decoded_pieces(other.encode(), 3)) == (text == other)
    assert view.joined is None


def test_each_decoded_piece_keeps_its_own_narrow_kind() -> None:
    """An astral character widens only its own piece: the ASCII pieces stay
    a byte a character (CPython's compact strings)."""
    text = "a" * 5000 + "🚀" + "b" * 5000
    view = decoded_pieces(text.encode(), 1000)
    pieces = [piece for _start, piece in view.chunk_spans()]
    assert "".join(pieces) == text
    narrow = [p for p in pieces if p.isascii()]
    assert len(narrow) >= len(pieces) - 1
    assert all(sys.getsizeof(p) < len(p) + 100 for p in narrow)


def test_invalid_utf8_fails_as_a_whole_decode_does() -> None:
    data = "é".encode() * 10 + b"\xff" + b"a" * 10
    for size in (1, 3, 7, 64):
        try:
            decoded_pieces(data, size)
        except UnicodeDecodeError:
            continue
        raise AssertionError(f"size {size} decoded invalid UTF-8")


@settings(max_examples=300, deadline=None)
@given(text=texts, edit=texts, data=st.data())
def test_a_snapshot_decoded_like_a_view_shares_its_equal_chunks(
    text: str, edit: str, data: st.DataObject
) -> None:
    """The snapshot read while its document is open: it reads as its own
    text, and holds the document's very chunks before and after where the
    two differ."""
    at = data.draw(st.integers(0, len(text)))
    document = data.draw(chunked(text[:at] + edit + text[at:]))
    snapshot = decoded_like(text.encode(), document, data.draw(st.integers(1, 9)))
    assert snapshot.join_unkept() == text
    assert snapshot.joined is None
    mine = {id(chunk) for _start, chunk in snapshot.chunk_spans()}
    theirs = [chunk for _start, chunk in document.chunk_spans()]
    first = theirs[0]
    if text.startswith(first) and first:
        assert id(first) in mine
    if not edit and text:
        assert all(id(chunk) in mine for chunk in theirs)
