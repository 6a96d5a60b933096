"""The unsent marks of a chunk view equal those of the same text as a ``str``.

The language server hands :class:`UnsentBaseline` a
:class:`~agent_doc.document.textlike.ChunkView` of its chunks (no join); the
CLI and the tests a ``str``. Random edit sequences on session documents (the
pieces of ``test_unsent_window``: fences, comments, markers, boundaries,
carriage returns, astral characters), each version cut into random chunks and
noted as an edit of the one before (as the server notes them, views with
views and strs with strs): after every edit the two give the same summary,
and the same as the whole-text computation. The server also holds the
snapshot as a view (of pieces decoded one by one,
:class:`~agent_doc.editor.snapshots.SnapshotCache`): a baseline made from
that view gives the same summaries, and never joins it for good.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.lineage import forget_edits
from agent_doc.document.lineage import note_edit
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import decoded_pieces
from agent_doc.editor._textwindow import FixedText
from agent_doc.editor.unsent import FullBaseline
from agent_doc.editor.unsent import UnsentBaseline
from tests.unit.editor.test_unsent_window import PIECES
from tests.unit.editor.test_unsent_window import texts


@st.composite
def edit(draw: st.DrawFn, text: str) -> tuple[int, int, str]:
    """One random replacement of a span of ``text``: ``(start, end, new)``."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 40)))
    new = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=3)))
    if draw(st.booleans()):
        new = new[: draw(st.integers(0, len(new)))]
    return start, end, new


def _view(text: str, size: int) -> ChunkView:
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return ChunkView(pieces or [""])


@settings(max_examples=500, deadline=None)
@given(snapshot=texts, data=st.data(), size=st.integers(1, 24))
def test_a_view_and_its_text_give_the_same_marks(
    snapshot: str, data: st.DataObject, size: int
) -> None:
    forget_edits()
    on_views, on_strs = UnsentBaseline(snapshot), UnsentBaseline(snapshot)
    kept = _view(snapshot, data.draw(st.integers(1, 24)))  # the server's form
    on_pieces = UnsentBaseline(kept)
    full = FullBaseline(snapshot)
    text = snapshot
    view = _view(text, size)
    assert on_views.changes(view) == on_strs.changes(text)
    assert on_pieces.changes(view) == on_strs.changes(text)
    for _ in range(data.draw(st.integers(1, 6))):
        start, end, new = data.draw(edit(text))
        tail = len(text) - end
        after = text[:start] + new + text[end:]
        after_view = _view(after, data.draw(st.integers(1, 24)))
        if data.draw(st.booleans()):  # noted, as the server notes its versions
            lines = text.count("\n", 0, start)
            note_edit(view, after_view, start, tail, lines)
            note_edit(text, after, start, tail, lines)
        text, view = after, after_view
        from_view = on_views.changes(view)
        assert from_view == on_strs.changes(text)
        assert from_view == full.changes(text)
        assert on_pieces.changes(view) == from_view
        assert on_pieces.changes(text) == from_view
    assert kept.joined is None  # a join for a scan is not kept
    forget_edits()


def test_a_keystroke_in_prose_reads_only_the_window() -> None:
    turn = "### Re: turn\n\nanswer → text 🚀\n\n```\ncode\n```\n\n"
    snapshot = "<!-- agent:exchange -->\n" + turn * 2000 + "<!-- /agent:exchange -->\n"
    at = snapshot.rindex("<!-- /agent")
    current = snapshot[:at] + "typed\n" + snapshot[at:]
    view = _view(current, 4096)
    summary = UnsentBaseline(snapshot).changes(view)
    assert summary == FullBaseline(snapshot).changes(current)
    assert [current[m.start : m.end] for m in summary.marks] == ["typed"]
    assert view.joined is None  # compared in place, never joined
    kept = decoded_pieces(snapshot.encode(), 4000)  # as the server keeps it
    assert UnsentBaseline(kept).changes(view) == summary
    assert kept.joined is None
    assert view.joined is None


@settings(max_examples=600, deadline=None)
@given(
    a=texts, b=texts, size=st.integers(1, 9), chunk=st.integers(1, 9), data=st.data()
)
def test_fixed_text_finds_the_same_ends_in_a_view(
    a: str, b: str, size: int, chunk: int, data: st.DataObject
) -> None:
    """The snapshot's common prefix and suffix with a view (its chunks
    compared in place) are those with the same text as a ``str``, from any
    known part on."""
    fixed, view = FixedText(a, size), _view(b, chunk)
    on_pieces = FixedText(_view(a, data.draw(st.integers(1, 9))), size)
    assert list(on_pieces.starts) == list(fixed.starts)
    head = fixed.common_prefix(b)
    assert a[:head] == b[:head]
    assert head == min(len(a), len(b)) or a[head] != b[head]
    known = data.draw(st.integers(0, head))
    assert fixed.common_prefix(view, known) == head
    assert on_pieces.common_prefix(view, known) == head
    assert on_pieces.common_prefix(b, known) == head
    limit = data.draw(st.integers(0, min(len(a), len(b))))
    tail = fixed.common_suffix(b, limit)
    known = data.draw(st.integers(0, tail))
    assert fixed.common_suffix(view, limit, known) == tail
    assert on_pieces.common_suffix(view, limit, known) == tail
    assert on_pieces.common_suffix(b, limit, known) == tail
    assert fixed.window(view) == fixed.window(b)
    assert on_pieces.window(view) == on_pieces.window(b) == fixed.window(b)
    assert view.joined is None
