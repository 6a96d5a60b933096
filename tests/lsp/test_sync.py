"""Text synchronization: incremental edits under each position encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc_lsp.convert import LineIndex
from tests.lsp.editor_client import Buffer
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import start_editor

DOC = "<!-- agent:status -->\n## Título 😀\n### naïve 😀 text\n<!-- /agent:status -->\n"


async def test_server_announces_name_version_and_incremental_sync(editor: Editor):
    result = editor.init_result
    assert result is not None
    assert result.server_info is not None
    assert result.server_info.name == "agent-doc-lsp"
    assert result.server_info.version
    sync = result.capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16


async def _headings(client: LanguageClient, uri: str) -> list[str]:
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols is not None
    (status,) = symbols
    assert isinstance(status, types.DocumentSymbol)
    return [c.name for c in status.children or []]


@pytest.mark.parametrize(
    ("offered", "expected"),
    [
        pytest.param(None, "utf-16", id="default-utf16"),
        pytest.param(["utf-8", "utf-16"], "utf-8", id="utf8"),
        pytest.param(["utf-32"], "utf-32", id="utf32"),
        pytest.param(["utf-16", "utf-8"], "utf-16", id="utf16-preferred"),
    ],
)
async def test_incremental_edits_after_emoji_land_in_the_right_place(
    client: LanguageClient, offered: list[str] | None, expected: str
):
    editor = await start_editor(client, encodings=offered)
    assert editor.encoding == expected
    uri = "file:///tmp/sync-enc.md"
    editor.open(uri, DOC)
    after_emoji = {"utf-8": len("### naïve 😀".encode()), "utf-16": 12, "utf-32": 11}
    editor.type(uri, 2, after_emoji[expected], " ✅X")
    end_of_title = {"utf-8": len("## Título 😀".encode()), "utf-16": 12, "utf-32": 11}
    editor.type(uri, 1, end_of_title[expected], "!")
    width = 2 if expected == "utf-8" else 1  # the "í"
    editor.replace(
        uri,
        types.Range(
            start=types.Position(line=1, character=4),
            end=types.Position(line=1, character=4 + width),
        ),
        "i",
    )
    assert editor.text(uri).splitlines()[1:3] == [
        "## Titulo 😀!",
        "### naïve 😀 ✅X text",
    ]
    assert await _headings(client, uri) == ["Titulo 😀!", "naïve 😀 ✅X text"]


async def test_buffer_is_kept_across_many_changes_and_dropped_on_close(editor: Editor):
    uri = "file:///tmp/sync-many.md"
    editor.open(uri, DOC)
    for ch in "abc":
        editor.type(uri, 2, 4, ch)
    assert editor.version(uri) == 4
    assert await _headings(editor.client, uri) == ["Título 😀", "cbanaïve 😀 text"]
    editor.close(uri)
    # closed and not on disk: the server no longer has it (an empty outline)
    result = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert result == []


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_fast_document_matches_pygls_on_random_edits(encoding):
    import random

    from pygls.workspace import TextDocument
    from pygls.workspace.position_codec import PositionCodec

    from agent_doc_lsp.fast_document import FastTextDocument
    from agent_doc_lsp.fast_document import line_starts

    rng = random.Random(7)
    alphabet = ["a", "b", "\n", "é", "😀", " ", "\r\n", "x", "y", "z"]
    text = "start 😀\nline two\n\nend"
    codec = PositionCodec(encoding)
    fast = FastTextDocument("file:///f.md", text, version=1, position_codec=codec)
    slow = TextDocument("file:///s.md", text, version=1, position_codec=codec)
    for step in range(600):
        src = slow.source
        a, b = sorted(rng.randrange(len(src) + 1) for _ in range(2))
        if step % 3:  # mostly typing within a line, like an editor
            b = a
        if src[a - 1 : a + 1] == "\r\n" or src[b - 1 : b + 1] == "\r\n":
            continue  # positions inside a CRLF are not valid LSP positions
        new = "".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        change = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=position_of(src, a, encoding), end=position_of(src, b, encoding)
            ),
            text=new,
        )
        slow.apply_change(change)
        fast.apply_change(change)
        assert fast.source == slow.source == src[:a] + new + src[b:]
        if step % 7 == 0:
            assert fast.current_line_starts() == line_starts(fast.source)
            assert fast.current_line_starts() == LineIndex(fast.source).starts


def test_fast_document_typing_run_then_other_lines():
    from pygls.workspace import TextDocument

    from agent_doc_lsp.fast_document import FastTextDocument
    from agent_doc_lsp.fast_document import line_starts

    text = "one\ntwo 😀\nthree\nfour\n"
    fast = FastTextDocument("file:///f.md", text, version=1)
    slow = TextDocument("file:///s.md", text, version=1)

    def put(line: int, ch: int, new: str, end: tuple[int, int] | None = None) -> None:
        start = types.Position(line=line, character=ch)
        stop = types.Position(line=end[0], character=end[1]) if end else start
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=stop), text=new
        )
        fast.apply_change(change)
        slow.apply_change(change)
        assert fast.source == slow.source

    for i, ch in enumerate("typed"):
        put(1, 6 + i, ch)  # a run on line 1 (after the emoji: 2 UTF-16 units)
    put(3, 0, ">")  # a later line, with the run's shift still pending
    put(1, 0, "<")  # back on line 1
    put(2, 5, "!", end=(3, 1))  # join lines 2 and 3
    put(0, 3, "\nnew")  # insert a line
    for ch in "xyz":
        put(4, 0, ch)
    assert fast.current_line_starts() == line_starts(fast.source)
    assert fast.source == "one\nnew\n<two 😀typed\nthree!four\nzyx"


async def test_a_failing_listener_does_not_stop_the_others():
    from agent_doc.errors import ComponentError
    from agent_doc_lsp.server import create_server

    server = create_server()
    ran: list[str] = []

    def domain_error(ls, uri):
        raise ComponentError("bad component")

    def crash(ls, uri):
        raise RuntimeError("boom")

    async def good(ls, uri):
        ran.append(uri)

    server.hooks.did_change[:] = [domain_error, crash, good]
    await server.emit(server.hooks.did_change, "file:///x.md")
    assert ran == ["file:///x.md"]


async def test_server_survives_a_change_to_an_unopened_document(editor: Editor):
    uri0 = "file:///tmp/never-opened.md"
    editor.buffers[uri0] = Buffer(uri0, "", 1)  # only the editor has it
    editor.append(uri0, "x")  # the server has no such buffer
    uri = "file:///tmp/after.md"
    editor.open(uri, DOC)
    assert await _headings(editor.client, uri) == ["Título 😀", "naïve 😀 text"]


class _StubClient:
    def __init__(self):
        self.changes: list[types.DidChangeTextDocumentParams] = []

    def text_document_did_change(self, params):
        self.changes.append(params)


def _edit(uri: str, version: int, text: str) -> types.ApplyWorkspaceEditParams:
    pos = types.Position(line=0, character=0)
    return types.ApplyWorkspaceEditParams(
        edit=types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=[
                        types.TextEdit(
                            range=types.Range(start=pos, end=pos), new_text=text
                        )
                    ],
                )
            ]
        )
    )


@pytest.mark.parametrize(
    ("mode", "applied", "text"),
    [
        pytest.param("reject-stale", False, "doc", id="reject"),
        pytest.param("skip-stale", True, "doc", id="skip-like-neovim"),
        pytest.param("apply", True, "new doc", id="apply-anyway"),
    ],
)
def test_editor_client_apply_modes_on_a_stale_version(mode, applied, text):
    from tests.lsp.editor_client import ApplyMode

    stub = _StubClient()
    editor = Editor(client=stub, mode=ApplyMode(mode))  # type: ignore[arg-type]
    editor.buffers["file:///a.md"] = Buffer("file:///a.md", "doc", 3)
    result = editor.handle_apply_edit(_edit("file:///a.md", 2, "new "))
    assert result.applied is applied
    assert editor.text("file:///a.md") == text
    assert len(stub.changes) == (1 if text != "doc" else 0)
    fresh = editor.handle_apply_edit(
        _edit("file:///a.md", editor.version("file:///a.md"), "x")
    )
    assert fresh.applied
    assert editor.text("file:///a.md") == "x" + text
    assert stub.changes[-1].text_document.version == editor.version("file:///a.md")


@pytest.mark.parametrize("spec", ["neovim", "visual-studio-code"])
async def test_smoke_with_real_editor_capabilities(client: LanguageClient, spec: str):
    from pytest_lsp import client_capabilities

    editor = await start_editor(client, client_caps=client_capabilities(spec))
    uri = f"file:///tmp/smoke-{spec}.md"
    editor.open(uri, DOC + "<!-- agent:open -->\n")
    editor.type(uri, 2, 4, "😀")
    text = editor.text(uri)
    after = position_of(text, text.index("😀 text") + 1, editor.encoding)
    editor.type(uri, after.line, after.character, "é")
    assert await _headings(client, uri) == ["Título 😀", "😀naïve 😀é text"]
    (diag,) = await editor.diagnostics(uri)
    assert diag.code == "unclosed"
    assert diag.range.start.line == 4
