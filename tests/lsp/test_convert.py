"""convert: code-point offsets ⇄ LSP positions under each encoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.convert import units
from agent_doc_lsp.convert import workspace_edit
from tests.lsp.editor_client import offset_of
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import range_from_str

TEXT = "a😀b\nnaïve\n\n🎉🎉x\n"


@pytest.mark.parametrize(
    ("encoding", "offset", "expected"),
    [
        pytest.param("utf-16", 2, (0, 3), id="u16-after-emoji"),
        pytest.param("utf-8", 2, (0, 5), id="u8-after-emoji"),
        pytest.param("utf-32", 2, (0, 2), id="u32-after-emoji"),
        pytest.param("utf-8", 4 + 4, (1, 5), id="u8-after-i-diaeresis"),
        pytest.param("utf-16", 12, (3, 2), id="u16-second-line-emoji"),
        pytest.param("utf-16", len(TEXT), (4, 0), id="end"),
        pytest.param("utf-16", 999, (4, 0), id="clamped"),
    ],
)
def test_position_of_offset(encoding, offset, expected):
    pos = LineIndex(TEXT, encoding).position(offset)
    assert (pos.line, pos.character) == expected


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_offset_round_trip_every_boundary(encoding):
    index = LineIndex(TEXT, encoding)
    for offset in range(len(TEXT) + 1):
        assert index.offset(index.position(offset)) == offset


def test_offset_past_line_end_clamps_to_line_end():
    index = LineIndex("ab\ncd\n")
    assert index.offset(types.Position(line=0, character=50)) == 2
    assert index.offset(types.Position(line=9, character=0)) == 6


def test_crlf_line_end_is_not_counted_as_a_column():
    index = LineIndex("ab\r\ncd")
    assert index.line_text(0) == "ab"
    assert index.offset(types.Position(line=0, character=9)) == 2


def test_units():
    assert units("😀", "utf-16") == 2
    assert units("😀", "utf-8") == 4
    assert units("😀", "utf-32") == 1
    assert units("é", "utf-8") == 2


def test_line_range_spans_whole_lines():
    index = LineIndex("one\ntwo😀\nthree\n")
    assert index.line_range(0, 1) == range_from_str("0:0-1:5")


def test_workspace_edit_forms():
    edit = types.TextEdit(range=range_from_str("0:0-0:1"), new_text="x")
    versioned = workspace_edit("file:///a.md", 3, [edit], document_changes=True)
    assert versioned.document_changes is not None
    change = versioned.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 3
    plain = workspace_edit("file:///a.md", 3, [edit], document_changes=False)
    assert plain.changes == {"file:///a.md": [edit]}


@given(
    st.text(alphabet=st.sampled_from(list("ab\n é😀\u200d")), max_size=40),
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
    st.data(),
)
def test_matches_an_independent_reference(text, encoding, data):
    offset = data.draw(st.integers(0, len(text)))
    index = LineIndex(text, encoding)
    assert index.position(offset) == position_of(text, offset, encoding)
    assert index.offset(position_of(text, offset, encoding)) == offset
    assert offset_of(text, index.position(offset), encoding) == offset
