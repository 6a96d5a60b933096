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
import sys
from collections.abc import Iterator

import pytest

from agent_doc.editor import outline
from agent_doc.editor import outline_parts
from agent_doc.editor.unsent import FullBaseline
from agent_doc.editor.unsent import UnsentBaseline
from agent_doc_lsp.chunked_text import ChunkedText
from agent_doc_lsp.chunked_text import ChunkLineStarts
from agent_doc_lsp.chunked_text import join_line_starts
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import line_starts
from agent_doc_lsp.symbol_json import SymbolEncoder

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
