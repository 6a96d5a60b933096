"""textDocument/documentSymbol: components, nesting, modes, frontmatter, headings."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import range_from_str
from tests.lsp.editor_client import range_to_str

DOC = """---
agent_doc_session: abc
agent_doc_format: template
---
# Title
<!-- agent:exchange -->
## Question 😀
<!-- agent:notes patch=prepend -->
### Deep
<!-- /agent:notes -->
<!-- /agent:exchange -->
```markdown
<!-- agent:fake -->
## not a heading
```
<!-- agent:status -->
ok
<!-- /agent:status -->
"""


async def _symbols(editor: Editor, uri: str) -> list[types.DocumentSymbol]:
    result = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    assert all(isinstance(s, types.DocumentSymbol) for s in result)
    return result  # type: ignore[return-value]


async def test_components_frontmatter_and_headings(editor: Editor):
    uri = "file:///tmp/symbols.md"
    editor.open(uri, DOC)
    front, exchange, status = await _symbols(editor, uri)
    assert front.name == "frontmatter"
    assert front.range == range_from_str("0:0-3:3")
    assert [c.name for c in front.children or []] == [
        "agent_doc_session",
        "agent_doc_format",
    ]
    assert (exchange.name, exchange.detail) == ("exchange", "append")
    assert range_to_str(exchange.range) == "5:0-10:24"
    assert range_to_str(exchange.selection_range) == "5:11-5:19"
    children = exchange.children or []
    assert [(c.name, c.kind) for c in children] == [
        ("Question 😀", types.SymbolKind.String),
        ("notes", types.SymbolKind.Module),
    ]
    notes = children[1]
    assert notes.detail == "prepend"
    assert [c.name for c in notes.children or []] == ["Deep"]
    assert (status.name, status.detail) == ("status", "replace")
    assert status.children is None


async def test_detail_uses_components_toml(editor: Editor, tmp_path: Path):
    root = tmp_path / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    (root / ".agent-doc" / "components.toml").write_text('[status]\nmode = "append"\n')
    doc = root / "doc.md"
    doc.write_text(DOC)
    editor.open(doc.as_uri(), DOC)
    symbols = await _symbols(editor, doc.as_uri())
    assert {s.name: s.detail for s in symbols}["status"] == "append"


async def test_broken_document_still_gets_an_outline(editor: Editor):
    uri = "file:///tmp/symbols-broken.md"
    editor.open(
        uri,
        "---\nmode: [\n---\n<!-- agent:a -->\n<!-- agent:b -->\n<!-- /agent:a -->\n",
    )
    symbols = await _symbols(editor, uri)
    assert [s.name for s in symbols] == ["frontmatter", "a"]


KEPT_DOC = """---
agent_doc_session: kept
---
<!-- agent:exchange -->
## Question 😀

Typed prose here.
Second line of prose.
<!-- agent:boundary:0a1b2c3d -->
<!-- agent:boundary:9f8e7d6c -->
<!-- /agent:exchange -->
<!-- agent:open -->
"""


async def test_answers_kept_across_prose_typing_equal_a_fresh_open(editor: Editor):
    """Over stdio: after keystrokes inside a prose line and neutral Enters
    (kept answers, lines shifted: a prose line split, Enter at the end of one
    above a marker, a line typed into the new empty line) and into a heading
    (recomputed), documentSymbol and the diagnostics equal those of the same
    text opened afresh."""
    uri, fresh = "file:///tmp/kept.md", "file:///tmp/kept-fresh-{}.md"
    editor.open(uri, KEPT_DOC)
    await _symbols(editor, uri)
    await editor.diagnostics(uri)
    typing = [(6, 5, "x"), (6, 6, "y"), (7, 0, "Z"), (4, 5, "é"), (6, 8, "\n"),
              (7, 2, "w"), (4, 3, "😀"),
              (8, 22, "\n"), (9, 0, "New"), (9, 3, "\n"), (10, 0, "é")]  # fmt: skip
    for step, (line, character, typed) in enumerate(typing):
        editor.type(uri, line, character, typed)
        got = await _symbols(editor, uri)
        found = await editor.diagnostics(uri)
        other = fresh.format(step)
        editor.open(other, editor.text(uri))
        assert got == await _symbols(editor, other)
        assert found == await editor.diagnostics(other)
        assert any(d.code == "stale-boundary" for d in found)  # not trivially empty
        editor.close(other)
