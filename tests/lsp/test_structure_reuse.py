"""documentSymbol and the structure diagnostics kept across neutral edits.

issue 37 item 3: after a keystroke inside one prose line the server answers
``documentSymbol`` and the component, boundary, frontmatter and item
diagnostics from what it kept for the previous version, without joining the
text (:mod:`agent_doc.document.neutral_edit`). Here a server object as
``initialize`` makes it, with tiny chunks (every edit can cross a chunk
boundary), is given random and adversarial edits — typing into markers,
fences, headings, HTML comments, the frontmatter, blank lines, the line above
a setext underline, backlog items, CRLF lines, beside astral characters, and
Enter — one version after another; after each, both answers are checked
against the plain computation of the same text (empty memos, a fresh
encoder), and the kept path must have been taken without reading the text.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import sys

import pytest
from lsprotocol import types

from agent_doc.document import lineage
from agent_doc.document.neutral_edit import neutral_line_edit
from agent_doc.document.neutral_edit import prose_line
from agent_doc.editor import outline_parts
from agent_doc.editor import problems
from agent_doc_lsp import convert
from agent_doc_lsp import fast_document
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.features import diagnostics
from agent_doc_lsp.features import symbols
from agent_doc_lsp.raw_json import RawJson
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.server import create_server
from agent_doc_lsp.symbol_json import SymbolEncoder
from tests.lsp.positions import position_of
from tests.unit.editor.test_hinted_same_as_plain import _fresh_memos

URI = "file:///structure-reuse/doc.md"

DOC = (
    "---\nagent_doc_session: s1\nagent: claude\nresponse_mode: append\n---\n"
    "Intro prose line with words.\nAnother prose line é and 😀 astral.\n\n"
    "Title of a setext heading\n=====\n\nSecond title\n---\n\n"
    "<!-- agent:status -->\nStatus prose here.\r\nCRLF line two.\r\n"
    "<!-- /agent:status -->\n"
    "<!-- agent:backlog -->\n- [ ] #a1 first item\n- [x] #a1 duplicate id\n"
    "[ ] bare box line\nplain note in the backlog\n<!-- /agent:backlog -->\n"
    "<!-- agent:exchange patch=append -->\n## User\n\nQuestion one?\n"
    "More words 😀 in the question.\n\n### Re: question\n\nAnswer text → here.\n"
    "```py\n# not a heading\n<!-- agent:boundary:1a2b -->\n```\n"
    "<!-- a private\ncomment block -->\n"
    "Words with `code` and a tail.\n    indented prose line\n"
    "<!-- agent:boundary:0a1b2c3d -->\n"
    "Typed question line\n<!-- agent:boundary:9f8e7d6c -->\n"
    "<!-- /agent:exchange -->\n"
    "<!-- agent:unclosed -->\nTrailing prose line\n"
)

PROSE = ["x", "é", "😀", " ", "ab", "word ", "2", "."]
STRUCTURE = ["#", "# ", "<", ">", "`", "```", "~~~", "-", "---", "=", "[", "]",
             "\n", "\r\n", "\n\n", "<!-- agent:new -->", "<!--", "-->", "\t",
             "[#", "\u2028", "*", "1. "]  # fmt: skip


def _server(text: str) -> tuple[AgentDocLanguageServer, asyncio.AbstractEventLoop]:
    server = create_server()
    server.protocol._workspace = FastWorkspace(None)  # as initialize makes it
    server.protocol.client_capabilities = types.ClientCapabilities()
    loop = asyncio.new_event_loop()
    server.loop = loop
    item = types.TextDocumentItem(uri=URI, language_id="markdown", version=1, text=text)
    server.workspace.put_text_document(item)
    return server, loop


def _doc(server: AgentDocLanguageServer) -> FastTextDocument:
    doc = server.workspace.get_text_document(URI)
    assert isinstance(doc, FastTextDocument)
    return doc


def _plain_symbols(text: str) -> object:
    with _fresh_memos():
        parts = outline_parts(text, {}, reuse=False)
    return json.loads(SymbolEncoder().encode(LineIndex(text), parts).text)


def _plain_diagnostics(text: str) -> list[types.Diagnostic]:
    with _fresh_memos():
        found = problems(text)
    index = LineIndex(text)
    return [convert.diagnostic(index, p) for p in found]


def _lines(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every line (without its ``\\n``)."""
    out, start = [], 0
    for line in text.split("\n"):
        out.append((start, start + len(line)))
        start += len(line) + 1
    return out


def _edit(rnd: random.Random, text: str) -> tuple[int, int, str]:
    """A random edit: mostly typing or deleting inside one line, often in a
    line that matters to the structure, sometimes across lines."""
    lines = _lines(text)
    prose = [(a, b) for a, b in lines if prose_line(text[a:b])]
    start, end = rnd.choice(prose if prose and rnd.random() < 0.6 else lines)
    roll = rnd.random()
    if roll < 0.08:  # across lines or anywhere
        at = rnd.randrange(len(text) + 1)
        return (
            at,
            min(len(text), at + rnd.randint(0, 30)),
            rnd.choice(PROSE + STRUCTURE),
        )
    at = rnd.randint(start, end)
    if text[at - 1 : at + 1] == "\r\n":
        at -= 1
    if roll < 0.35 and at < end:  # delete inside the line
        cut = min(end, at + rnd.randint(1, 3))
        if text[cut - 1 : cut + 1] == "\r\n":
            cut -= 1
        return at, cut, ""
    new = rnd.choice(PROSE if roll < 0.8 else STRUCTURE)
    return at, at, new


class _Run:
    """The server, the text it should hold, and what each path answered."""

    def __init__(self, text: str) -> None:
        self.server, self.loop = _server(text)
        self.text = text
        self.version = 1
        self.kept_symbols = self.kept_diagnostics = 0

    def apply(self, at: int, cut: int, new: str) -> None:
        self.version += 1
        self.server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=URI, version=self.version),
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    position_of(self.text, at), position_of(self.text, cut)
                ),
                text=new,
            ),
        )
        self.text = self.text[:at] + new + self.text[cut:]

    def replace_all(self, text: str) -> None:
        """A full-text change (the structure starts afresh)."""
        self.version += 1
        self.server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=URI, version=self.version),
            types.TextDocumentContentChangeWholeDocument(text=text),
        )
        self.text = text

    def check(self) -> None:
        server, doc = self.server, _doc(self.server)
        key = server.structure_key(URI)
        encoder = server.symbol_encoder(URI)
        edited = None if key is None else key.lines
        enters = [] if key is None else key.enters
        expect_kept = encoder.kept(key, {}, server.encoding, edited, enters) is not None
        answer = self.loop.run_until_complete(symbols.symbols(server, URI))
        if expect_kept:
            self.kept_symbols += 1
            assert doc._text is not None
            assert not doc._text.joined  # the text was not read
        assert answer.value() == _plain_symbols(self.text)
        reading = diagnostics.read(server, URI, [])
        assert reading is not None
        if reading.kept is not None:
            self.kept_diagnostics += 1
            assert doc._text is not None
            assert not doc._text.joined
        found = diagnostics.settle(
            server, URI, reading, diagnostics.check(server, reading)
        )
        assert found == _plain_diagnostics(self.text)

    def close(self) -> None:
        self.loop.close()


@pytest.fixture
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document cut into 16-character chunks for the test."""
    monkeypatch.setattr(FastTextDocument, "chunk_size", 16)


@pytest.mark.parametrize("seed", range(8))
def test_kept_answers_equal_the_plain_ones_over_random_edits(
    seed: int, tiny_chunks: None
) -> None:
    rnd = random.Random(seed)
    run = _Run(DOC)
    try:
        run.check()
        for _step in range(150):
            if _step % 40 == 39:  # the document read again, as after a revert
                run.replace_all(DOC)
            for _ in range(rnd.choice([1, 1, 1, 2])):  # several per didChange
                run.apply(*_edit(rnd, run.text))
            run.check()
        assert run.kept_symbols >= 15  # the kept path was driven, not only the plain
        assert run.kept_diagnostics >= 15
    finally:
        run.close()


def _line_of(text: str, needle: str) -> tuple[int, int]:
    at = text.index(needle)
    end = text.find("\n", at)
    return at, len(text) if end < 0 else end


ADVERSARIAL = [
    # (a line holding this, where in it, what is typed)
    ("<!-- agent:status -->", 5, "x"),
    ("<!-- /agent:exchange -->", 12, "y"),
    ("```py", 3, "x"),
    ("```\n<!-- a private", 2, "x"),
    ("## User", 4, "x"),
    ("### Re: question", 0, "x"),
    ("Title of a setext heading", 5, "x"),
    ("=====", 2, "x"),
    ("Second title", 3, "z"),
    ("agent: claude", 7, "x"),
    ("response_mode: append", 2, "x"),
    ("<!-- a private", 6, "x"),
    ("comment block -->", 3, "x"),
    ("Status prose here.", 6, "x"),
    ("CRLF line two.", 14, "x"),
    ("- [ ] #a1 first item", 10, "x"),
    ("[ ] bare box line", 4, "x"),
    ("plain note in the backlog", 0, "#"),
    ("Words with `code`", 2, "x"),
    ("    indented prose line", 2, " "),
    ("    indented prose line", 0, "x"),
    ("Typed question line", 5, "`"),
    ("Typed question line", 5, "<!--"),
    ("Typed question line", 0, "# "),
    ("Typed question line", 19, "\n"),
    ("Typed question line", 19, "\n\n"),
    ("Trailing prose line", 3, "x"),
    ("Intro prose line", 0, "---\n"),
    ("Another prose line é", 22, "x"),
]


@pytest.mark.parametrize(("needle", "column", "typed"), ADVERSARIAL)
def test_typing_into_each_kind_of_line_keeps_the_answers_exact(
    needle: str, column: int, typed: str, tiny_chunks: None
) -> None:
    run = _Run(DOC)
    try:
        run.check()
        at = run.text.index(needle) + column  # the line starts before: it stays
        for _ in range(3):  # three keystrokes, then deleting them again
            run.apply(at, at, typed)
            run.check()
        for _ in range(3):
            run.apply(at, at + len(typed), "")
            run.check()
        assert run.text == DOC
    finally:
        run.close()


def test_prose_lines_and_neutral_edits() -> None:
    assert prose_line("Typed question line")
    assert prose_line("CRLF line two.\r")
    assert prose_line("    indented prose line")
    for line in ["", "   ", "## User", "<!-- agent:x -->", "```py", "~~~", "---",
                 "===", "- item", "1. item", "2) item", "Words with `code`",
                 "a -->", "[ ] box", "x\u2028y", "* star", "|table|"]:  # fmt: skip
        assert not prose_line(line), line
    assert neutral_line_edit("Typed line", "Typedx line", "next prose")
    assert not neutral_line_edit("Title", "Titlex", "=====")  # above an underline
    assert not neutral_line_edit("Title", "Titlex", "--- ")
    assert not neutral_line_edit("  Title", " xTitle", "")  # the indent changed
    assert neutral_line_edit("Title", "Titlex", "")


def test_a_kept_outline_is_not_given_for_an_edited_line_holding_a_position() -> None:
    text = "<!-- agent:exchange -->\n## User\n\nWords here.\n<!-- /agent:exchange -->\n"
    index = LineIndex(text)
    parts = outline_parts(text, {})
    encoder, key = SymbolEncoder(), object()
    answer = encoder.encode(index, parts)
    encoder.keep(key, {}, index, parts, answer)
    assert encoder.kept(key, {}, index.encoding, {3}) is answer  # a prose line
    assert encoder.kept(key, {}, index.encoding, {3, 1}) is None  # the heading's
    encoder.keep(key, {}, index, parts, answer)
    assert encoder.kept(key, {}, index.encoding, {4}) is None  # the close marker's
    encoder.keep(key, {}, index, parts, answer)
    assert encoder.kept(key, {}, "utf-8", ()) is None  # another encoding
    assert encoder.kept(object(), {}, index.encoding, ()) is None  # another key
    assert encoder.kept(key, {}, index.encoding, None) is None  # lines unknown


@pytest.mark.parametrize("seed", range(4))
def test_answers_stay_exact_when_every_version_is_let_go(
    seed: int, tiny_chunks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37 item 3: the long text a version was handed out as is let go
    at the next change (the scan memos, the outline's parts and kept line
    index and the notes hold the version's view instead,
    :func:`agent_doc.document.lineage.let_go`). Here every text counts as
    long, so every joined version is let go and the next plain path restarts
    from a view: each answer is still the plain computation's."""
    let_go = fast_document.let_go
    calls: list[int] = []

    def counted(old: str, view: object) -> None:
        calls.append(len(old))
        let_go(old, view)  # type: ignore[arg-type]

    monkeypatch.setattr(fast_document, "LONG_TEXT", 1)
    monkeypatch.setattr(fast_document, "let_go", counted)
    rnd = random.Random(seed)
    run = _Run(DOC)
    try:
        run.check()
        for _step in range(120):
            for _ in range(rnd.choice([1, 1, 2])):
                run.apply(*_edit(rnd, run.text))
            run.check()
        assert len(calls) >= 20  # the plain path joined, then let go, often
    finally:
        run.close()


def test_the_open_text_is_let_go_at_the_first_change() -> None:
    """After the open's run (which scans the text pygls handed over), the
    outline and diagnostics of a prose keystroke: nothing but this test
    refers to that long ``str`` any more (its view, whose chunks the
    document shares, is kept instead)."""
    turns = "".join(f"## Turn {i}\n\nprose line {i} — é\n\n" for i in range(40000))
    text = DOC + turns
    assert len(text) > fast_document.LONG_TEXT
    run = _Run(text)
    try:
        run.loop.run_until_complete(symbols.symbols(run.server, URI))
        reading = diagnostics.read(run.server, URI, [])
        assert reading is not None
        diagnostics.settle(
            run.server, URI, reading, diagnostics.check(run.server, reading)
        )
        held = sys.getrefcount(text)
        at = text.rindex("prose line")
        run.apply(at, at, "x")
        run.check()
        gc.collect()
        assert sys.getrefcount(text) == 2 < held  # this name and the call's
        assert run.text != text
    finally:
        run.close()


def test_the_open_text_is_let_go_at_rest_without_a_change() -> None:
    """issue 37 item 3: once the open's debounced run and outline, which
    read the text pygls handed over, are over and no run is due, nothing but
    this test refers to that long ``str`` (every holder keeps the version's
    view); the outline and diagnostics asked again (one join, noted as equal
    to the view), and those after a structural edit, are still the plain
    computation's."""
    turns = "".join(f"## Turn {i}\n\nprose line {i} — é\n\n" for i in range(40000))
    text = DOC + turns
    assert len(text) > fast_document.LONG_TEXT
    run = _Run(text)
    run.text = (text + ".")[:-1]  # a copy: only the server holds ``text``
    server = run.server
    try:
        diagnostics.schedule(server, URI)  # as didOpen does
        run.loop.run_until_complete(symbols.symbols(server, URI))
        assert sys.getrefcount(text) > 3  # a run is due: the text is kept

        async def debounced_run() -> None:
            diagnostics.start(server, URI)  # the debounce ends
            await diagnostics.state_of(server).tasks[URI]

        run.loop.run_until_complete(debounced_run())
        gc.collect()
        assert sys.getrefcount(text) == 2  # this name and the call's
        document = _doc(server)
        assert not document.joined
        view = document.view()
        joined = document.source  # a request that needs the whole text
        assert lineage.common_ends(view, joined) == lineage.Agreement(
            len(text), 0, text.count("\n")
        )  # the memos kept for the view serve it as they are
        del joined
        run.check()  # both join the text once, then let it go again
        gc.collect()
        assert sys.getrefcount(text) == 2
        at = text.index("## Turn 20000")
        run.apply(at, at, "<!-- agent:added -->\n")  # structural
        run.check()
        at = run.text.index("prose line 30000")
        run.apply(at, at + 5, "\n\n# ")
        run.check()
    finally:
        run.close()


ENTER_DOC = DOC.replace(
    "<!-- agent:boundary:0a1b2c3d -->\n",
    "Para with `tick start\nmiddle prose line\nmore <!-- agent:hidden --> and` end\n"
    "\nTitle of another\n---\n\nA question line to split\n\n"
    "Lead prose\nTitle two\n===\n\n"
    "<!-- agent:boundary:0a1b2c3d -->\n",
)
"""DOC with a paragraph whose backticks, paired across its lines, hide a
marker, setext titles, and a prose line before a blank line."""

NEUTRAL_ENTERS = [
    # (a line holding this, where in it: -1 at its end)
    ("middle prose line", 7),  # split: the paragraph keeps its lines
    ("A question line to split", -1),  # before an empty line
    ("A question line to split", 9),
    ("Typed question line", -1),  # before a marker line
    ("Trailing prose line", 8),  # the last line
    ("Trailing prose line", -1),  # at the end of the text
    ("Question one?", 8),
    ("    indented prose line", 10),
    ("plain note in the backlog", 5),  # a backlog's note line
    ("plain note in the backlog", -1),
]

STRUCTURAL_ENTERS = [
    ("middle prose line", -1),  # a blank line would unpair the backticks
    ("Para with `tick start", 4),  # the line holds a backtick
    ("Title of another", -1),  # above a setext underline
    ("Title of another", 5),
    ("Lead prose", -1),  # a blank line would split the setext title off
    ("Intro prose line with words.", -1),  # a blank line inside a paragraph
    ("Question one?", 0),  # at the start: a blank line above it
    ("## User", 3),
    ("<!-- agent:status -->", 5),
    ("```py", 2),
    ("agent: claude", 6),  # the frontmatter
    ("CRLF line two.", 4),
]


def _enter(run: _Run, needle: str, column: int) -> bool:
    """Type Enter in the line holding ``needle`` (``column`` -1: at its
    end); whether the structure key was kept (a neutral Enter)."""
    at, end = _line_of(run.text, needle)
    at = end if column < 0 else at + column
    key = run.server.structure_key(URI)
    run.apply(at, at, "\n")
    return run.server.structure_key(URI) is key


@pytest.mark.parametrize(("needle", "column"), NEUTRAL_ENTERS)
def test_a_neutral_enter_keeps_the_answers_with_the_lines_shifted(
    needle: str, column: int, tiny_chunks: None
) -> None:
    """issue 37 item 3: Enter splitting a prose line, or at the end of one
    before an empty line, a marker line or the end of the text, keeps the
    answers (no text read), the lines after it moved down one; then typing
    a line of prose into the new empty line keeps them too."""
    run = _Run(ENTER_DOC)
    try:
        run.check()
        kept = run.kept_symbols, run.kept_diagnostics
        assert _enter(run, needle, column)
        run.check()
        assert (run.kept_symbols, run.kept_diagnostics) == (kept[0] + 1, kept[1] + 1)
        if column < 0:  # a new line of prose typed into the empty line
            at = run.text.index(needle) + len(needle) + 1
            for typed in ["W", "o", "rds", " é 😀"]:
                key = run.server.structure_key(URI)
                run.apply(at, at, typed)
                assert run.server.structure_key(URI) is key
                at += len(typed)
                run.check()
            assert _enter(run, "Words é 😀", -1)  # and Enter again at its end
            run.check()
        assert run.kept_symbols == kept[0] + 1 + (5 if column < 0 else 0)
        assert run.kept_diagnostics == run.kept_symbols
    finally:
        run.close()


@pytest.mark.parametrize(("needle", "column"), STRUCTURAL_ENTERS)
def test_an_enter_that_may_change_the_structure_takes_the_plain_path(
    needle: str, column: int, tiny_chunks: None
) -> None:
    run = _Run(ENTER_DOC)
    try:
        run.check()
        assert not _enter(run, needle, column)
        run.check()
    finally:
        run.close()


def test_typing_into_an_empty_line_is_neutral_only_below_prose_above_a_break(
    tiny_chunks: None,
) -> None:
    """The empty line below a prose line joins its paragraph: neutral when
    the line below it ends that paragraph anyway; a blank line between
    paragraphs or above a setext underline is not."""
    text = "Lead prose\n\nNext prose\n\n---\n\n<!-- agent:x -->\nWords\n\n"
    text += "<!-- /agent:x -->\n"
    run = _Run(text)
    try:
        run.check()
        for needle, neutral in [("Lead prose\n", False), ("Next prose\n", False),
                                ("Words\n", True), ("---\n", False)]:  # fmt: skip
            at = run.text.index(needle) + len(needle)
            key = run.server.structure_key(URI)
            run.apply(at, at, "x")
            assert (run.server.structure_key(URI) is key) is neutral, needle
            run.check()
    finally:
        run.close()


def _enter_edit(rnd: random.Random, text: str) -> tuple[int, int, str]:
    """Mostly Enter in or at the end of a prose line, or a letter typed into
    an empty line; else one of :func:`_edit`'s."""
    lines = _lines(text)
    prose = [(a, b) for a, b in lines if prose_line(text[a:b])]
    empty = [a for a, b in lines if a == b]
    roll = rnd.random()
    if roll < 0.6 and prose:
        start, end = rnd.choice(prose)
        at = end if roll < 0.3 else rnd.randint(start, end)
        if text[at - 1 : at + 1] == "\r\n":
            at -= 1
        return at, at, "\n"
    if roll < 0.85 and empty:
        at = rnd.choice(empty)
        return at, at, rnd.choice(["w", "Word", "é", "x y"])
    return _edit(rnd, text)


@pytest.mark.parametrize("seed", range(6))
def test_kept_answers_equal_the_plain_ones_over_random_enters(
    seed: int, tiny_chunks: None
) -> None:
    rnd = random.Random(seed)
    run = _Run(ENTER_DOC)
    after_enter = 0
    try:
        run.check()
        for _step in range(120):
            key = run.server.structure_key(URI)
            enters = 0 if key is None else len(key.enters)
            for _ in range(rnd.choice([1, 1, 1, 2])):  # several per didChange
                run.apply(*_enter_edit(rnd, run.text))
            kept = run.kept_symbols
            run.check()
            now = run.server.structure_key(URI)
            if now is key and now is not None and len(now.enters) > enters:
                after_enter += run.kept_symbols - kept
        assert after_enter >= 10  # answers kept across Enters, lines shifted
    finally:
        run.close()


def _kept_outline(text: str) -> tuple[SymbolEncoder, object, LineIndex, RawJson]:
    """An encoder holding the outline of ``text``, kept under a new key."""
    index = LineIndex(text)
    parts = outline_parts(text, {})
    encoder, key = SymbolEncoder(), object()
    answer = encoder.encode(index, parts)
    encoder.keep(key, {}, index, parts, answer)
    return encoder, key, index, answer


def test_a_kept_outline_is_shifted_past_the_enters_typed_since() -> None:
    text = (
        "<!-- agent:exchange -->\n## User\n\nWords here.\n\n## Next\n"
        "<!-- /agent:exchange -->\n"
    )
    encoder, key, index, answer = _kept_outline(text)
    parts = outline_parts(text, {})
    # an Enter's line and the one it made count as edited (StructureKey.note)
    assert encoder.kept(key, {}, index.encoding, {1, 2}, [1]) is None  # a heading's
    encoder.keep(key, {}, index, parts, answer)
    shifted = encoder.kept(key, {}, index.encoding, {3, 4}, [3])  # "Words\n here."
    assert shifted is not None
    after = text.replace("Words here.", "Words\n here.")
    assert json.loads(shifted.text) == _plain_symbols(after)
    twice = encoder.kept(key, {}, index.encoding, {3, 4, 5}, [3, 4])
    assert twice is not None
    after = after.replace(" here.", " here.\n")
    assert json.loads(twice.text) == _plain_symbols(after)
    index, parts = LineIndex(after), outline_parts(after, {})
    answer = encoder.encode(index, parts)
    encoder.keep(key, {}, index, parts, answer, 2)  # made after both Enters
    assert encoder.kept(key, {}, index.encoding, {3, 4, 5}, [3, 4]) is answer
    third = encoder.kept(key, {}, index.encoding, {3, 4, 5, 6}, [3, 4, 5])
    assert third is not None
    after = after.replace(" here.\n", " here.\n\n")
    assert json.loads(third.text) == _plain_symbols(after)


@pytest.mark.parametrize("column", [5, -1])
def test_the_symbols_on_the_line_after_an_enter_move(column: int) -> None:
    """The headings on the lines right after the Enter, each a child ending on
    its own line, are encoded again, not reused."""
    text = (
        "<!-- agent:exchange -->\n## User\nWords here.\n## A\n## B\n"
        "<!-- agent:inner -->\n<!-- /agent:inner -->\n<!-- /agent:exchange -->\n"
    )
    encoder, key, index, _answer = _kept_outline(text)
    shifted = encoder.kept(key, {}, index.encoding, {2, 3}, [2])
    assert shifted is not None
    at = text.index("Words here.") + (len("Words here.") if column < 0 else column)
    after = text[:at] + "\n" + text[at:]
    assert json.loads(shifted.text) == _plain_symbols(after)
