"""The chunked fast document against pygls' plain one, on the same edits.

Chunks are made tiny here (a few characters) so every edit can cross chunk
boundaries, split a CRLF or an astral character's neighbours across two
chunks, merge small chunks and split big ones.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from agent_doc_lsp.chunked_text import ChunkedText
from agent_doc_lsp.chunked_text import ChunkLineStarts
from agent_doc_lsp.chunked_text import join_line_starts
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import line_starts
from tests.lsp.editor_client import position_of

TOKENS = ["a", "b", " ", "\n", "\r\n", "é", "😀", "𝄞x", "xyz", "\n\n"]
texts = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)
encodings = st.sampled_from(["utf-8", "utf-16", "utf-32"])


class TinyChunks(FastTextDocument):
    chunk_size = 5


def _inside_crlf(text: str, offset: int) -> bool:
    return text[offset - 1 : offset + 1] == "\r\n"


def _change(
    text: str, a: int, b: int, new: str, encoding: str
) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=position_of(text, a, encoding), end=position_of(text, b, encoding)
        ),
        text=new,
    )


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, encoding=encodings)
def test_chunked_document_matches_pygls_on_the_same_edits(data, text, encoding):
    codec = PositionCodec(encoding)
    fast = TinyChunks("file:///f.md", text, version=1, position_codec=codec)
    plain = TextDocument("file:///p.md", text, version=1, position_codec=codec)
    for _ in range(data.draw(st.integers(1, 12), label="edits")):
        src = plain.source
        a = data.draw(st.integers(0, len(src)), label="start")
        b = data.draw(st.integers(a, min(len(src), a + 30)), label="end")
        if _inside_crlf(src, a) or _inside_crlf(src, b):
            continue  # not a valid LSP position
        new = data.draw(texts, label="new")
        change = _change(src, a, b, new, encoding)
        plain.apply_change(change)
        fast.apply_change(change)
        expected = src[:a] + new + src[b:]
        assert plain.source == expected
        assert fast.length == len(expected)
        assert fast.text_equals(expected)
        assert not fast.text_equals(expected + "x")
        if data.draw(st.booleans(), label="read"):  # reads between edits
            assert fast.source == expected
            assert fast.current_line_starts() == LineIndex(expected).starts
    assert fast.source == plain.source
    assert fast.current_line_starts() == line_starts(plain.source)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, size=st.integers(4, 9))
def test_chunked_text_slices_lines_and_compares_like_a_string(data, text, size):
    chunked = ChunkedText(text, size)
    for _ in range(data.draw(st.integers(1, 10), label="edits")):
        a = data.draw(st.integers(0, len(text)), label="start")
        b = data.draw(st.integers(a, len(text)), label="end")
        new = data.draw(texts, label="new")
        chunked.replace(a, b, new)
        text = text[:a] + new + text[b:]
        assert len(chunked) == len(text)
        assert chunked.equals(text)
        i = data.draw(st.integers(0, len(text)), label="i")
        j = data.draw(st.integers(0, len(text)), label="j")
        assert chunked.slice(i, j) == text[i:j]
        starts = line_starts(text)
        assert chunked.line_count() == len(starts)
        line = data.draw(st.integers(0, len(starts)), label="line")
        assert chunked.line_start(line) == (
            starts[line] if line < len(starts) else len(text)
        )
    assert chunked.line_starts() == line_starts(text)
    assert chunked.text() == text


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, size=st.integers(4, 9))
def test_line_start_parts_taken_before_edits_still_give_that_text(data, text, size):
    # what a diagnostics or documentSymbol worker thread joins while the
    # person goes on typing on the event loop
    chunked = ChunkedText(text, size)
    taken = [(text, chunked.line_start_parts())]
    for _ in range(data.draw(st.integers(1, 8), label="edits")):
        a = data.draw(st.integers(0, len(text)), label="start")
        b = data.draw(st.integers(a, len(text)), label="end")
        new = data.draw(texts, label="new")
        chunked.replace(a, b, new)
        text = text[:a] + new + text[b:]
        taken.append((text, chunked.line_start_parts()))
    for then, parts in taken:
        assert join_line_starts(parts) == line_starts(then)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, size=st.integers(4, 9), encoding=encodings)
def test_chunk_line_starts_equal_the_joined_list(data, text, size, encoding):
    # the line index the diagnostics and documentSymbol runs read in place
    # (ChunkLineStarts) against the plain one (every line start in a list)
    chunked = ChunkedText(text, size)
    for _ in range(data.draw(st.integers(0, 6), label="edits")):
        a = data.draw(st.integers(0, len(text)), label="start")
        b = data.draw(st.integers(a, len(text)), label="end")
        new = data.draw(texts, label="new")
        chunked.replace(a, b, new)
        text = text[:a] + new + text[b:]
        starts = ChunkLineStarts(chunked.line_start_parts())
        plain = LineIndex(text, encoding)
        assert list(starts) == plain.starts == line_starts(text)
        assert len(starts) == len(plain.starts)
        assert starts[-1] == plain.starts[-1]
        fast = LineIndex(text, encoding, starts)
        for offset in range(-1, len(text) + 2):
            assert fast.line_of(offset) == plain.line_of(offset), offset
            assert fast.point(offset) == plain.point(offset), offset
        for line in range(len(plain.starts) + 1):
            pos = types.Position(line=line, character=1)
            assert fast.offset(pos) == plain.offset(pos)
            assert fast.line_range(0, line) == plain.line_range(0, line)


def test_big_edits_split_and_small_chunks_merge():
    chunked = ChunkedText("abcdefgh" * 4, 8)
    chunked.replace(3, 3, "x" * 40)  # one piece past 2× the size: split
    assert len(chunked._chunks) > 4
    assert all(len(c) <= 16 for c in chunked._chunks)
    chunked.replace(0, len(chunked) - 1, "")  # almost all gone: merged away
    assert chunked._chunks == ["h"]
    assert chunked.text() == "h"
    chunked.replace(0, 1, "")
    assert chunked.text() == ""
    assert chunked.line_count() == 1
    chunked.replace(0, 0, "new\ntext")
    assert chunked.line_starts() == [0, 4]


def test_crlf_and_astral_characters_across_a_chunk_boundary():
    text = "ab\r\n😀c\r\nd"
    codec = PositionCodec("utf-16")
    for size in range(4, 9):

        class Sized(FastTextDocument):
            chunk_size = size

        fast = Sized("file:///f.md", text, version=1, position_codec=codec)
        plain = TextDocument("file:///p.md", text, version=1, position_codec=codec)
        src = text
        for a, b, new in [(5, 5, "!"), (2, 2, "\n"), (0, 0, "x"), (9, 11, "")]:
            change = _change(src, a, b, new, "utf-16")
            fast.apply_change(change)
            plain.apply_change(change)
            src = plain.source
            assert fast.source == src, size


def test_typing_does_not_join_the_text_even_with_the_live_edit_tracker():
    from agent_doc_lsp.live_edit import ChangeTracker
    from agent_doc_lsp.server import create_server

    server = create_server()
    workspace = server.protocol.use_fast_workspace()  # as initialize makes it
    tracker = ChangeTracker()
    tracker.install(server)
    uri = "file:///big.md"
    text = "line 😀\n" * 50_000
    workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
    )
    doc = workspace.get_text_document(uri)
    assert isinstance(doc, FastTextDocument)
    pos = types.Position(line=25_000, character=2)
    for version in range(2, 5):
        workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=pos, end=pos), text="x"
            ),
        )
        assert doc._text is not None
        assert not doc._text.joined
    typed = text[: 25_000 * 7 + 2] + "xxx" + text[25_000 * 7 + 2 :]
    with tracker.watch(uri, typed + "y") as watch:  # a write waiting: compared
        end = types.Position(line=50_000, character=0)
        workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=5),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=end, end=end), text="y"
            ),
        )
        assert watch.matched
        assert not doc._text.joined
    assert doc.source == typed + "y"


def test_a_failing_change_listener_stops_neither_the_others_nor_the_changes(caplog):
    """pygls applies a didChange's changes in one loop; an exception escaping a
    listener stopped it, and the server's text fell behind the editor's."""
    from agent_doc_lsp.server import create_server

    server = create_server()
    workspace = server.protocol.use_fast_workspace()  # as initialize makes it
    uri = "file:///listeners.md"
    workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text="ab\n")
    )
    seen: list[str] = []

    def broken(_ident, _doc):
        raise RuntimeError("a listener's bug")

    workspace.change_listeners[:] = [broken, lambda _i, doc: seen.append(doc.source)]
    at = [types.Position(line=0, character=n) for n in (1, 2)]
    params = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(start=p, end=p), text=t
            )
            for p, t in zip(at, ("1", "2"), strict=True)
        ],
    )
    with caplog.at_level("ERROR", logger="agent_doc_lsp.fast_document"):
        next(server.protocol.lsp_text_document__did_change(params), None)
    assert workspace.get_text_document(uri).source == "a12b\n"
    assert seen == ["a1b\n", "a12b\n"]  # the next listener saw every change
    failures = [
        r for r in caplog.records if r.getMessage().startswith("change listener")
    ]
    assert len(failures) == 2


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, encoding=encodings)
def test_line_before_matches_the_joined_text(data, text, encoding):
    codec = PositionCodec(encoding)
    fast = TinyChunks("file:///f.md", text, version=1, position_codec=codec)
    fast.chunk()
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        src = fast.source
        a = data.draw(st.integers(0, len(src)), label="start")
        if _inside_crlf(src, a):
            continue
        new = data.draw(texts, label="new")
        fast.apply_change(_change(src, a, a, new, encoding))
        expected = src[:a] + new + src[a:]
        b = data.draw(st.integers(0, len(expected)), label="cursor")
        if _inside_crlf(expected, b):
            continue
        pos = position_of(expected, b, encoding)
        line_start = expected.rfind("\n", 0, b) + 1
        assert fast.line_before(pos) == (b, expected[line_start:b])
    past = types.Position(line=fast.source.count("\n") + 1, character=0)
    assert fast.line_before(past) is None


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=texts, encoding=encodings)
def test_views_stay_their_version_and_are_noted_as_edits(data, text, encoding):
    """The unsent marks read ``view()``: each view keeps its version while
    edits go on, is noted as an edit of the view handed out before (what the
    note says is shared is), converts positions as the joined text does, and
    its join is noted as an edit of the ``str`` handed out before."""
    from agent_doc.document.lineage import common_ends
    from agent_doc.document.lineage import forget_edits
    from agent_doc.document.textlike import same_text

    forget_edits()
    codec = PositionCodec(encoding)
    doc = TinyChunks("file:///f.md", text, version=1, position_codec=codec)
    doc.chunk()
    views = [(doc.view(), text)]
    handed = [(doc.source, text)]
    for _ in range(data.draw(st.integers(1, 10), label="edits")):
        a = data.draw(st.integers(0, len(text)), label="start")
        b = data.draw(st.integers(a, min(len(text), a + 20)), label="end")
        if _inside_crlf(text, a) or _inside_crlf(text, b):
            continue
        new = data.draw(texts, label="new")
        doc._apply_incremental_change(_change(text, a, b, new, encoding))
        text = text[:a] + new + text[b:]
        if data.draw(st.booleans(), label="view"):
            view = doc.view()
            (before, old), agreed = views[-1], common_ends(views[-1][0], view)
            assert agreed is not None
            assert old[: agreed.head] == text[: agreed.head]
            assert old[len(old) - agreed.tail :] == text[len(text) - agreed.tail :]
            assert agreed.head_lines == text.count("\n", 0, agreed.head)
            views.append((view, text))
            starts = ChunkLineStarts(doc.line_start_parts())
            index, plain = LineIndex(view, encoding, starts), LineIndex(text, encoding)
            at = data.draw(st.integers(0, len(text)), label="offset")
            assert index.position(at) == plain.position(at)
            assert index.offset(plain.position(at)) == plain.offset(plain.position(at))
            if data.draw(st.booleans(), label="join"):
                born_joined = view.joined is not None  # cut from a str just now
                joined = str(view)
                before = handed[-1][0]
                if not born_joined and joined is not before:  # noted by the join
                    assert common_ends(before, joined) is not None
                assert doc.source is joined
                handed.append((joined, text))
    for view, version in views:  # every view still reads its own version
        assert same_text(view, version)
        assert view[: len(version)] == version
    forget_edits()


def test_a_view_is_not_joined_by_the_unsent_marks_of_prose_typing():
    """Typing in prose: the marks read the chunks' view, the text is never
    joined (``joined`` stays false), and the marks are those of the text."""
    from agent_doc.editor.unsent import FullBaseline
    from agent_doc.editor.unsent import UnsentBaseline

    snapshot = "<!-- agent:exchange -->\n" + "## User\n\nsome 😀 prose\n\n" * 400
    snapshot += "<!-- /agent:exchange -->\n"
    doc = FastTextDocument("file:///f.md", snapshot, version=1)
    doc.chunk_size = 512
    doc.chunk()
    baseline = UnsentBaseline(snapshot)
    text = snapshot
    at = snapshot.rindex("<!-- /agent")
    for key in range(5):
        doc._apply_incremental_change(_change(text, at + key, at + key, "x", "utf-16"))
        text = text[: at + key] + "x" + text[at + key :]
        if key % 2:
            continue  # a debounced run skips versions
        summary = baseline.changes(doc.view())
        assert summary == FullBaseline(snapshot).changes(text)
        assert doc._text is not None
        assert not doc.joined
