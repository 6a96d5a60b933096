"""documentSymbol sent as pre-built JSON is exactly what lsprotocol would send (issue 17)."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from agent_doc.document.component_config import ComponentConfig
from agent_doc.editor import outline
from agent_doc_lsp import convert
from agent_doc_lsp.server import converter
from bench._fixtures import structured_document
from tests.lsp.test_symbols import DOC

CONFIGS = {"status": ComponentConfig(mode="append")}


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
def test_json_symbols_equal_the_lsprotocol_objects(text: str, encoding: str) -> None:
    index = convert.LineIndex(text, encoding)
    symbols = outline(text, CONFIGS)
    before = [convert.document_symbol(index, s) for s in symbols]
    conv = converter()
    assert convert.document_symbols_json(index, symbols) == conv.unstructure(before)


def test_the_server_converter_sends_a_json_result_unchanged() -> None:
    index = convert.LineIndex(DOC)
    symbols = outline(DOC, CONFIGS)
    data = convert.document_symbols_json(index, symbols)
    conv = converter()
    response = types.DocumentSymbolResponse(id=7, result=data)
    wire = conv.unstructure(response)
    assert wire["result"] is data
    old = types.DocumentSymbolResponse(
        id=7, result=[convert.document_symbol(index, s) for s in symbols]
    )
    assert json.loads(json.dumps(wire)) == json.loads(json.dumps(conv.unstructure(old)))
