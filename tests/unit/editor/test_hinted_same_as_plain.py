"""The server's versions through the hinted paths give the plain answers.

issue 37 item 3: the language server notes each version it hands out as an
edit of the one before (:mod:`agent_doc.document.lineage`), and the
component scan, code blocks, boundaries, outline memo and unsent marks read
the note instead of comparing the texts. Here a real ``FastWorkspace`` is
given the same edit sequences as the plain test
(:mod:`tests.unit.editor.test_incremental_same_as_full`) and random ones at
the start, the middle and the end, several per ``didChange``, one version
after another; every answer is checked against the plain path (empty memos,
a fresh encoder, ``FullBaseline``), and every note against the texts.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from lsprotocol import types

from agent_doc.document import _textmemo
from agent_doc.document import boundary
from agent_doc.document import codeblocks
from agent_doc.document import components
from agent_doc.document import lineage
from agent_doc.document._textmemo import TextMemo
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.components import scan_components
from agent_doc.editor import cache
from agent_doc.editor import outline_parts
from agent_doc.editor import part_memo
from agent_doc.editor import problems
from agent_doc.editor._textwindow import FixedText
from agent_doc.editor.unsent import FullBaseline
from agent_doc.editor.unsent import UnsentBaseline
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.symbol_json import SymbolEncoder
from tests.lsp.positions import position_of
from tests.unit.editor.test_incremental_same_as_full import EDITS
from tests.unit.editor.test_incremental_same_as_full import Edit
from tests.unit.editor.test_incremental_same_as_full import _varied
from tests.unit.editor.test_incremental_same_as_full import _versions

INSERTS = ["x", "\n", "## typed\n", "```\n", "<!-- agent:inner -->\n",
           "<!-- /agent:inner -->\n", "<!-- private", "-->\n", "😀", "\n\n", "`",
           "\n<!-- agent:boundary:0a1b2c3d -->\n", "\n\n`<!-- agent:boundary:9 -->`"]  # fmt: skip


@contextmanager
def _fresh_memos() -> Iterator[None]:
    """Every scan memo empty for the duration: the plain path, whole texts."""
    saved = (
        components._SCANS, components._MARKERS, codeblocks._BLOCKS,
        codeblocks._INDEXES, list(_textmemo._LAST_PAIR), dict(cache._entries),
        list(boundary._last),
    )  # fmt: skip
    components._SCANS, components._MARKERS = TextMemo(4), TextMemo(4)
    codeblocks._BLOCKS, codeblocks._INDEXES = TextMemo(8), TextMemo(2)
    _textmemo._LAST_PAIR.clear()
    cache._entries.clear()
    boundary._last.clear()
    try:
        yield
    finally:
        components._SCANS, components._MARKERS = saved[0], saved[1]
        codeblocks._BLOCKS, codeblocks._INDEXES = saved[2], saved[3]
        _textmemo._LAST_PAIR[:] = saved[4]
        cache._entries.clear()
        cache._entries.update(saved[5])
        boundary._last[:] = saved[6]


class _Server:
    """A document the way the server holds it: changes applied in place,
    each version's text read through ``source`` (which notes the edit)."""

    def __init__(self, text: str) -> None:
        self.workspace = FastWorkspace(None)
        self.uri = "file:///hinted.md"
        self.version = 1
        item = types.TextDocumentItem(
            uri=self.uri, language_id="markdown", version=1, text=text
        )
        self.workspace.put_text_document(item)
        self.text = self.doc.source

    @property
    def doc(self) -> FastTextDocument:
        doc = self.workspace.get_text_document(self.uri)
        assert isinstance(doc, FastTextDocument)
        return doc

    def change(self, edits: list[Edit], *, step: int = 1) -> str:
        """One ``didChange`` of ``edits`` (offsets in the text each applies
        to), the version moved by ``step``; the text before it."""
        self.version += step
        ident = types.VersionedTextDocumentIdentifier(
            version=self.version, uri=self.uri
        )
        for start, end, new in edits:
            text = _current(self.doc)
            change = types.TextDocumentContentChangePartial(
                range=types.Range(position_of(text, start), position_of(text, end)),
                text=new,
            )
            self.workspace.update_text_document(ident, change)
        before, self.text = self.text, self.doc.source
        return before

    def replace_all(self, text: str) -> None:
        """A full-text ``didChange``."""
        self.version += 1
        ident = types.VersionedTextDocumentIdentifier(
            version=self.version, uri=self.uri
        )
        self.workspace.update_text_document(
            ident, types.TextDocumentContentChangeWholeDocument(text=text)
        )
        self.text = self.doc.source


def _current(doc: FastTextDocument) -> str:
    """The document's text without reading ``source`` (no note made)."""
    return doc.prefix(doc.length)


def _note_holds(before: str, after: str) -> None:
    """What the server noted about ``before`` → ``after`` is true."""
    agreed = lineage.common_ends(before, after)
    assert agreed is not None
    head, tail = agreed.head, agreed.tail
    assert before[:head] == after[:head]
    assert before[len(before) - tail :] == after[len(after) - tail :]
    assert head + tail <= min(len(before), len(after))
    assert agreed.head_lines == after.count("\n", 0, head)


def _same_as_plain(text: str, encoder: SymbolEncoder, baseline: UnsentBaseline,
                   full: FullBaseline) -> None:  # fmt: skip
    """Scan, outline (and its JSON), problems and marks of ``text``: the
    hinted paths' answers are the plain paths' (empty memos, whole texts)."""
    fast_scan = scan_components(text)
    fast_parts = outline_parts(text)
    fast_problems = problems(text)
    fast_blocks = block_ranges(text)
    fast_boundaries = find_boundaries(text)
    with _fresh_memos():
        assert fast_scan == scan_components(text)
        assert fast_blocks == block_ranges(text)
        assert fast_boundaries == find_boundaries(text)
        plain_parts = outline_parts(text, reuse=False)
        assert fast_problems == problems(text)
    assert fast_parts == plain_parts
    index = LineIndex(text)
    plain_json = SymbolEncoder().encode(index, plain_parts).text
    assert encoder.encode(index, fast_parts).text == plain_json
    assert baseline.changes(text) == full.changes(text)
    if text != baseline.snapshot:  # the ends it found from the notes are exact
        fixed = FixedText(baseline.snapshot)
        limit = min(len(text), len(baseline.snapshot))
        ends = fixed.common_prefix(text), fixed.common_suffix(text, limit)
        assert baseline._last == (text, *ends)


def _exchange(turns: int) -> str:
    """A long exchange component: headings, fences, blank lines."""
    turn = "## User\n\nQuestion {n}?\n\n### Re: turn {n}\n\nAnswer → text.\n\n```py\n# not a heading\n```\n\n"  # fmt: skip
    body = "".join(turn.format(n=n) for n in range(turns))
    return f"<!-- agent:exchange patch=append -->\n{body}<!-- /agent:exchange -->\n"


def _random_edit(rnd: random.Random, text: str) -> Edit:
    """An edit at the start, the middle or the end (mostly: where people type)."""
    where = rnd.choice(["start", "middle", "end", "end", "anywhere"])
    if where == "start":
        at = rnd.randrange(0, min(len(text), 300) + 1)
    elif where == "middle":
        at = rnd.randrange(len(text) // 2 - 200, len(text) // 2 + 200)
    elif where == "end":
        at = rnd.randrange(max(len(text) - 400, 0), len(text) + 1)
    else:
        at = rnd.randrange(len(text) + 1)
    cut = at
    if rnd.random() < 0.3:
        cut = min(len(text), at + rnd.randint(1, 40))
    return at, cut, "" if cut > at and rnd.random() < 0.5 else rnd.choice(INSERTS)


@pytest.mark.parametrize("seed", range(6))
def test_the_server_hinted_paths_equal_the_plain_ones(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(part_memo, "COPY_BELOW", 4096)  # the exchange: a reference
    rnd = random.Random(seed)
    snapshot = _varied(30) + _exchange(80)  # one long component (no copy kept)
    at = snapshot.index("## User\n\nQuestion 40")
    mark = "<!-- agent:boundary:5e6f7a8b -->\n\n"
    snapshot = snapshot[:at] + mark + snapshot[at:]  # two: one is stale
    at = snapshot.rindex("<!-- /agent:exchange")
    snapshot = snapshot[:at] + mark + snapshot[at:]
    server = _Server(snapshot)
    baseline, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    encoder = SymbolEncoder()
    _same_as_plain(server.text, encoder, baseline, full)
    for version in range(40):
        count = 1 if version % 4 else rnd.randint(2, 4)  # some multi-change
        edits, text = [], _current(server.doc)
        for _ in range(count):
            at, cut, new = _random_edit(rnd, text)
            edits.append((at, cut, new))
            text = text[:at] + new + text[cut:]
        before = server.change(edits)
        assert server.text == text
        _note_holds(before, server.text)
        _same_as_plain(server.text, encoder, baseline, full)


def test_the_server_edits_of_the_plain_sequences_take_the_hinted_paths() -> None:
    snapshot = _varied(40)
    server = _Server(snapshot)
    baseline, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    encoder = SymbolEncoder()
    for text, edit in _versions(snapshot, EDITS):
        before = server.change([edit])
        assert server.text == text
        _note_holds(before, server.text)
        _same_as_plain(server.text, encoder, baseline, full)


def test_without_a_note_the_plain_path_is_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(part_memo, "COPY_BELOW", 256)  # references, compared
    snapshot = _varied(40)
    server = _Server(snapshot)
    baseline, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    encoder = SymbolEncoder()
    at = snapshot.rindex("<!-- /agent:")
    before = server.change([(at, at, "typed\n")], step=2)  # a version skipped
    assert lineage.common_ends(before, server.text) is None
    _same_as_plain(server.text, encoder, baseline, full)
    before = server.text
    server.replace_all(before + "## more\n")  # a full-text change
    assert lineage.common_ends(before, server.text) is None
    _same_as_plain(server.text, encoder, baseline, full)
    before = server.change([(3, 3, "x")])  # and the next edit is noted again
    _note_holds(before, server.text)
    _same_as_plain(server.text, encoder, baseline, full)
