"""ChunkView reads like the ``str`` it stands for, without joining it."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import contains
from agent_doc.document.textlike import same_text

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
