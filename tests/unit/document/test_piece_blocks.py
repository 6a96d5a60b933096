"""Blocks scanned from a view's pieces equal those of the whole ``str``.

The plain scan (:func:`agent_doc.document.codeblocks.block_ranges`) and the
piecewise one (:func:`agent_doc.document.piece_blocks.piece_block_ranges`,
for the snapshot the language server holds as pieces) get the same texts:
fences of backticks and tildes, comment blocks opened and closed across
lines, one-line comments, blocks left open to the end, carriage returns, cut
into random pieces and scanned in stretches of random sizes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import piece_blocks
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.codeblocks import scan_block_ranges
from agent_doc.document.piece_blocks import piece_block_ranges
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import decoded_pieces
from tests.unit.editor.test_unsent_window import PIECES

LINES = [*PIECES, "~~~\n", "````\n", "  ```js\n", "text ``` not a fence\n", "ab"]
texts = st.lists(st.sampled_from(LINES), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=texts, piece=st.integers(1, 30), stretch=st.integers(1, 40))
def test_pieces_give_the_blocks_of_the_whole_text(
    text: str, piece: int, stretch: int
) -> None:
    view = ChunkView([text[i : i + piece] for i in range(0, len(text), piece)] or [""])
    fences, comments = block_ranges(text)
    assert piece_block_ranges(view, stretch) == (fences, comments)
    assert piece_block_ranges(text, stretch) == (fences, comments)
    assert view.joined is None


def test_a_fence_left_open_over_many_pieces_is_scanned_in_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unclosed fence at the start: each rescan waits for as much new text
    as it holds, so the characters scanned stay within a few times the text."""
    scanned: list[int] = []

    def counted(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        scanned.append(len(text))
        return scan_block_ranges(text)

    monkeypatch.setattr(piece_blocks, "scan_block_ranges", counted)
    text = "```\n" + "code line\n" * 20000
    view = decoded_pieces(text.encode(), 64)
    fences, comments = piece_block_ranges(view, 64)
    assert (fences, comments) == ([(0, len(text))], [])
    assert len(scanned) > 10
    assert sum(scanned) <= 4 * len(text)
