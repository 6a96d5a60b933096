"""The server's per-keystroke fast paths give what the plain recompute gives.

issue 37 item 3: the outline is patched from the parts of the last version,
its JSON reused per part and per heading, the unsent marks computed on the
changed window only, the line index joined from the line starts the chunks
keep. Each is fed the same inputs as its plain counterpart (built afresh,
whole texts): documents of many components (headings, fences, nested and
private-comment ones) and the hostile 100,000-component document, edited at
the start, the middle and the end, one version after another as a person
types (the fast paths carry state from one version to the next).
"""

from __future__ import annotations

import json
import random
import sys
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
from agent_doc.editor import outline
from agent_doc.editor import outline_parts
from agent_doc.editor import part_memo
from agent_doc.editor import problems
from agent_doc.editor._textwindow import FixedText
from agent_doc.editor.unsent import FullBaseline
from agent_doc.editor.unsent import UnsentBaseline
from agent_doc_lsp.chunked_text import ChunkedText
from agent_doc_lsp.chunked_text import ChunkLineStarts
from agent_doc_lsp.chunked_text import join_line_starts
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.fast_document import line_starts
from agent_doc_lsp.symbol_json import SymbolEncoder
from tests.lsp.editor_client import position_of

FM = "---\nagent_doc_format: template\n---\n"

EDITS = [
    "x",
    "\n## typed heading\n",
    "<!-- agent:fresh -->\n## inside\n<!-- /agent:fresh -->\n",
    "```\n",  # a fence left open: everything after it is code
    "<!-- private",
    "-->\n",
    "",  # a deletion (see _versions)
]


def _varied(count: int) -> str:
    """``count`` components: headings, fences, nesting, private comments."""
    parts = []
    for i in range(count):
        body = f"## Part {i}\n\ntext → {i}\n"
        if i % 3 == 0:
            body += "```\n# not a heading\n```\n"
        if i % 5 == 0:
            body += f"<!-- agent:in{i} -->\n### nested {i}\n<!-- /agent:in{i} -->\n"
        if i % 7 == 0:
            body += "<!-- a private note -->\n"
        parts.append(f"<!-- agent:c{i} -->\n{body}<!-- /agent:c{i} -->\n")
    return FM + "".join(parts)


def _hostile_many() -> str:
    """The 100,000-component document of tests/reliability/test_hostile.py."""
    parts = [f"<!-- agent:c{i} -->\nx\n<!-- /agent:c{i} -->\n" for i in range(100_000)]
    return FM + "".join(parts)


Edit = tuple[int, int, str]
"""Characters ``[start, end)`` replaced by a text."""


def _versions(text: str, edits: list[str]) -> Iterator[tuple[str, Edit]]:
    """``text`` edited at its start, middle and end, each edit kept, and
    the edit that made each version."""
    for where in ("start", "middle", "end"):
        for new in edits:
            if where == "start":
                at = len(FM)
            elif where == "middle":
                at = text.index("\n", len(text) // 2) + 1
            else:
                at = text.rindex("<!-- /agent:")
            cut = text.index("\n", at) + 1 if not new and at < len(text) else at
            text = text[:at] + new + text[cut:]
            yield text, (at, cut, new)


def _same_outline(text: str, encoder: SymbolEncoder) -> None:
    """Outline, its JSON and folds: the memo's answer is the fresh one."""
    fast_parts = outline_parts(text)
    plain_parts = outline_parts(text, reuse=False)
    assert fast_parts == plain_parts  # so the outlines (the parts shifted) too
    index = LineIndex(text)
    fast_json = encoder.encode(index, fast_parts).text
    plain_json = SymbolEncoder().encode(index, plain_parts).text
    assert fast_json == plain_json
    json.loads(fast_json)


def _same_line_starts(chunked: ChunkedText, edit: Edit, text: str) -> None:
    """After ``edit`` made ``text``, the line starts ``chunked`` keeps (and
    hands a worker thread) equal a fresh split's."""
    chunked.replace(*edit)
    assert chunked.equals(text)
    parts = chunked.line_start_parts()
    plain = LineIndex(text)
    assert join_line_starts(parts) == line_starts(text) == plain.starts
    kept = LineIndex(text, starts=ChunkLineStarts(parts))  # as the server reads it
    assert len(kept.starts) == len(plain.starts)
    step = max(len(text) // 5_000, 1)
    for offset in [*range(0, len(text), step), edit[0], edit[0] + len(edit[2])]:
        assert kept.point(offset) == plain.point(offset)


@pytest.mark.parametrize("count", [1, 40, 1_000])
def test_fast_paths_equal_the_plain_ones_on_many_components(count: int) -> None:
    snapshot = _varied(count)
    baseline, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    encoder = SymbolEncoder()
    chunked = ChunkedText(snapshot, 4096)
    _same_outline(snapshot, encoder)
    for text, edit in _versions(snapshot, EDITS):
        _same_outline(text, encoder)
        assert baseline.changes(text) == full.changes(text)
        _same_line_starts(chunked, edit, text)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_fast_paths_equal_the_plain_ones_on_100k_components() -> None:
    snapshot = _hostile_many()
    baseline, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    encoder = SymbolEncoder()
    chunked = ChunkedText(snapshot)
    _same_outline(snapshot, encoder)
    for text, edit in _versions(snapshot, ["\n## typed\n"]):
        _same_outline(text, encoder)
        summary = baseline.changes(text)
        assert summary == full.changes(text)
        assert summary.marks  # the edit is marked
        _same_line_starts(chunked, edit, text)


def _small(prefix: str, count: int) -> str:
    return "".join(
        f"<!-- agent:{prefix}{i} -->\nx\n<!-- /agent:{prefix}{i} -->\n"
        for i in range(count)
    )


def test_the_memo_keeps_the_current_document_and_bounds_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memo = sys.modules["agent_doc.editor.outline"]._PARTS
    monkeypatch.setattr(memo, "LIMIT", 100_000)
    big = "<!-- agent:big-one -->\n" + "## h\n\nline\n" * 20_000
    text = big + "<!-- /agent:big-one -->\n" + _small("s", 5_000)
    assert len(text) > 4 * memo.LIMIT
    first = outline_parts(text)
    assert first == outline_parts(text, reuse=False)
    # every part of the document is kept, though they exceed the limit: an
    # edit before them all (every part moves) rebuilds none
    moved = "typed\n" + text
    again = outline_parts(moved)
    assert all(a.symbol is b.symbol for a, b in zip(again, first, strict=True))
    assert memo._chars == sum(e.cost for e in memo._entries.values())
    # another document: the first one's parts beyond the limit are dropped
    outline_parts(_small("other", 3_000))
    assert memo._chars - memo._pass_chars <= memo.LIMIT
    assert memo._chars == sum(e.cost for e in memo._entries.values())
    assert all(memo._entries[s].comps for s in memo._latest.values())
    # typing in the big component patches it (found by its name) in place
    outline_parts(text)
    at = text.index("<!-- /agent:big-one")
    first_heading = outline_parts(text)[0].symbol.children[0]
    for typed in ("typed", "typed\n## more\n"):
        text = text[:at] + typed + text[at:]
        assert outline(text) == outline(text, reuse=False)
        end = text.index("\n", text.index("<!-- /agent:big-one")) + 1
        assert [s for s in memo._entries if s[0] == "big-one"] == [("big-one", end)]
        assert outline_parts(text)[0].symbol.children[0] is first_heading


# --- the edit notes: the server's versions through the hinted paths --------

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
