"""documentSymbol sent as pre-encoded JSON is exactly what lsprotocol would send.

The server encodes each top-level symbol once and reuses its JSON while it is
unchanged (issue 17); these tests compare every answer, before and after edits
of every kind, with lsprotocol's serialization of freshly built objects.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from agent_doc.document.component_config import ComponentConfig
from agent_doc.editor import outline
from agent_doc.editor import outline_parts
from agent_doc.editor.model import Symbol
from agent_doc_lsp import convert
from agent_doc_lsp.raw_json import RawJson
from agent_doc_lsp.server import converter
from agent_doc_lsp.symbol_json import SymbolEncoder
from agent_doc_lsp.symbol_json import symbol_json
from bench._fixtures import structured_document
from bench._lspclient import StdioClient
from tests.lsp.test_symbols import DOC

CONFIGS = {"status": ComponentConfig(mode="append")}


def expected(text: str, encoding: str = convert.UTF16, configs: Any = None) -> Any:
    """What lsprotocol's converter makes of freshly built ``DocumentSymbol``s."""
    index = convert.LineIndex(text, encoding)
    fresh = outline(text, configs, reuse=False)
    symbols = [convert.document_symbol(index, s) for s in fresh]
    return converter().unstructure(symbols)


def encoded(encoder: SymbolEncoder, text: str, encoding: str = convert.UTF16) -> Any:
    index = convert.LineIndex(text, encoding)
    return encoder.encode(index, outline_parts(text, CONFIGS)).value()


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        pytest.param(DOC, convert.UTF16, id="small-utf16"),
        pytest.param(DOC, convert.UTF8, id="small-utf8"),
        pytest.param(DOC.replace("\n", "\r\n"), convert.UTF16, id="crlf"),
        pytest.param(structured_document(40, 160_000), convert.UTF16, id="large"),
        pytest.param(structured_document(5, 8_000), convert.UTF32, id="utf32"),
    ],
)
def test_encoded_symbols_equal_the_lsprotocol_objects(text: str, encoding: str) -> None:
    assert encoded(SymbolEncoder(), text, encoding) == expected(text, encoding, CONFIGS)


EDITS = {
    # each: text -> edited text, applied to structured_document(6, 6_000)
    "keystroke-mid-line": lambda t: t.replace("Heading 3.2", "Heading 3.2x"),
    "keystroke-in-first-line-of-a-component": lambda t: t.replace(
        "<!-- agent:part2 -->", "é<!-- agent:part2 -->"
    ),
    "new-line": lambda t: t.replace("### Heading 2.3\n", "### Heading 2.3\n\n"),
    "wide-char-before-a-component": lambda t: t.replace(
        "<!-- /agent:part1 -->\n", "<!-- /agent:part1 -->😀\n"
    ),
    "heading-removed": lambda t: t.replace("### Heading 4.1\n", "no heading\n"),
    "component-renamed": lambda t: t.replace("agent:part5 ", "agent:last ").replace(
        "/agent:part5 ", "/agent:last "
    ),
    "component-nested": lambda t: t.replace(
        "### Heading 1.4\n",
        "<!-- agent:inner -->\n### Heading 1.4\n<!-- /agent:inner -->\n",
    ),
    "frontmatter-key": lambda t: t.replace("model: x", "model: x\nextra: y"),
    "mode-changed": lambda t: t.replace(
        "<!-- agent:part0 -->", "<!-- agent:part0 patch=append -->"
    ),
    "component-closed-early": lambda t: t.replace("<!-- /agent:part3 -->\n", ""),
    "same-text-again": lambda t: t,
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
@pytest.mark.parametrize("encoding", [convert.UTF16, convert.UTF8])
def test_reused_json_after_an_edit_equals_a_fresh_encoding(
    edit: str, encoding: str
) -> None:
    before = structured_document(6, 6_000)
    after = EDITS[edit](before)
    assert edit == "same-text-again" or after != before
    encoder = SymbolEncoder()
    assert encoded(encoder, before, encoding) == expected(before, encoding, CONFIGS)
    assert encoded(encoder, after, encoding) == expected(after, encoding, CONFIGS)
    assert encoded(encoder, before, encoding) == expected(before, encoding, CONFIGS)


def test_a_raw_result_reaching_the_converter_is_decoded() -> None:
    response = types.DocumentSymbolResponse(id=7, result=RawJson('[{"a":1}]'))  # type: ignore[arg-type]
    assert converter().unstructure(response)["result"] == [{"a": 1}]


def _change(line: int, text: str) -> dict[str, Any]:
    pos = {"line": line, "character": 0}
    return {"range": {"start": pos, "end": pos}, "text": text}


def test_the_client_receives_the_lsprotocol_json_after_each_keystroke(
    tmp_path: Path,
) -> None:
    """The real server over stdio, raw JSON as the client reads it."""
    (tmp_path / ".agent-doc").mkdir()
    text = structured_document(12, 30_000)
    uri = (tmp_path / "doc.md").as_uri()
    (tmp_path / "doc.md").write_text(text, "utf-8")
    handlers = {"workspace/configuration": lambda p: [None] * len(p["items"])}
    client = StdioClient([sys.executable, "-m", "agent_doc_lsp"], handlers)
    try:
        client.initialize(tmp_path.as_uri())
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": text}})  # fmt: skip
        params = {"textDocument": {"uri": uri}}
        _, first = client.request("textDocument/documentSymbol", params)
        assert first == expected(text)
        lines = text.split("\n")
        middle = next(i for i, s in enumerate(lines) if s.startswith("### Heading 6."))
        typed = [
            "x",
            "# ",
            "\n",
            "<!-- agent:typed -->\n## new\n<!-- /agent:typed -->\n",
        ]
        for version, insert in enumerate(typed, start=2):
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [_change(middle, insert)]})  # fmt: skip
            lines = text.split("\n")
            lines[middle] = insert + lines[middle]
            text = "\n".join(lines)
            _, answer = client.request("textDocument/documentSymbol", params)
            assert answer == expected(text), f"after typing {insert!r}"
        assert json.dumps(answer) != json.dumps(first)
    finally:
        client.close()


def test_two_identical_components_are_both_encoded_at_their_own_place() -> None:
    block = "<!-- agent:twin -->\n## Same\n<!-- /agent:twin -->\n"
    text = block + "between\n" + block
    encoder = SymbolEncoder()
    assert encoded(encoder, text) == expected(text, configs=CONFIGS)
    assert encoded(encoder, "x" + text) == expected("x" + text, configs=CONFIGS)


def test_a_long_component_typed_in_keeps_its_children_json_exact() -> None:
    # one exchange holding every heading, typed in at the end, in the middle,
    # with a new line and a heading: the children kept from the previous
    # answer (before the edited lines) and the new ones encode as lsprotocol does
    turn = "## User\n\nQ {n}?\n\n### Re: turn {n}\n\nA → é.\n\n```\n# no\n```\n\n"
    body = "".join(turn.format(n=n) for n in range(60))
    text = f"<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\n"
    encoder = SymbolEncoder()
    assert encoded(encoder, text) == expected(text, configs=CONFIGS)
    middle = text.index("### Re: turn 30")
    for at, typed in [(-1, "x"), (-1, "\n### New\n"), (middle, "é\n"), (-1, "y")]:
        pos = text.rindex("<!-- /agent:exchange") if at < 0 else at
        text = text[:pos] + typed + text[pos:]
        assert encoded(encoder, text) == expected(text, configs=CONFIGS)


def test_the_json_of_a_symbol_leaves_nothing_holding_its_line_index() -> None:
    """issue 37 item 3: writing a symbol's JSON makes no reference cycle (a
    recursive closure did), so the line index, and the long text it reads,
    go as soon as the answer is made, not at the next full collection."""
    leaf = Symbol("b", "", "component", 2, 3, 2, 3)
    tree = Symbol("a", "x", "component", 0, 4, 0, 1, (leaf, leaf))
    index = convert.LineIndex("a\nb\nc\n")
    held = sys.getrefcount(index)
    gc.disable()
    try:
        text = symbol_json(index, tree, 1)
        assert sys.getrefcount(index) == held
    finally:
        gc.enable()
    assert json.loads(text)["children"][0]["name"] == "b"
