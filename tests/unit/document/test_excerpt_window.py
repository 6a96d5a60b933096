"""The resumed excerpts made on the UTF-8 around the markers are exactly the
plain ``resumed_context`` of the decoded texts (random session documents and
edits: fences, comments, code spans, boundaries, nested and repeated
components, non-ASCII, other line breaks, cut tails)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import apply_window
from agent_doc.document import excerpt
from agent_doc.document import excerpt_window
from agent_doc.document.excerpt import resumed_context
from agent_doc.document.excerpt_window import resumed_context_utf8
from agent_doc.document.linediff import common_prefix
from agent_doc.document.snap_index import EVERY
from agent_doc.document.snap_scan import index_of
from agent_doc.document.snapshot_scan import SnapshotScan
from bench._long_docs import conversation
from bench._long_docs import type_line
from tests.unit.document.test_apply_window import HEADS
from tests.unit.document.test_apply_window import PIECES
from tests.unit.document.test_apply_window import PROSE
from tests.unit.document.test_apply_window import documents

EXTRA = [
    "## Assistant\n", "### Re: answer\n", "<!-- agent:notes -->\nn\n<!-- /agent:notes -->\n",
    "<!-- agent:outer -->\n<!-- agent:status -->\nin\n<!-- /agent:status -->\n"
    "<!-- /agent:outer -->\n",
    "<!-- agent:exchange -->\nnested?\n<!-- /agent:exchange -->\n", "😀😀😀 wide\n",
]  # fmt: skip
"""Pieces the excerpts look at: answer headings, nested and repeated names."""
bodies = st.lists(
    st.sampled_from(PIECES + EXTRA + PROSE * 6), min_size=10, max_size=80
).map("".join)
sessions = st.builds(  # long enough to hold stretches
    lambda head, top, body, end: (
        f"{head}{top}<!-- agent:exchange patch=append -->\n{body}{end}"
        "<!-- /agent:exchange -->\n"
    ),
    st.sampled_from(HEADS),
    st.sampled_from(["", PIECES[7], EXTRA[2], EXTRA[3]]),
    bodies,
    st.sampled_from(["", "<!-- agent:boundary:0a1b2c3d -->\n", "Typed.\n"]),
)
inserts = st.lists(st.sampled_from(PIECES + EXTRA + PROSE * 4), max_size=4).map("".join)


@st.composite
def edits(draw: st.DrawFn, text: str) -> str:
    """``text`` after one to three edits: text inserted, a range deleted or
    replaced, anywhere (the end of the exchange most often)."""
    for _ in range(draw(st.integers(1, 3))):
        close = text.rfind("<!-- /agent:exchange -->")
        at = draw(
            st.one_of(
                st.just(close if close >= 0 else len(text)), st.integers(0, len(text))
            )
        )
        cut = draw(st.integers(0, 40))
        text = text[:at] + draw(inserts) + text[at + cut * draw(st.booleans()) :]
    return text


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A snapshot and the document after edits."""
    snapshot = draw(st.one_of(documents, sessions))
    return snapshot, draw(edits(snapshot))


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    texts=pairs(),
    sizes=st.tuples(st.integers(1, 12), st.integers(0, 6)),
    limits=st.tuples(st.integers(1, 60), st.integers(2, 120)),
    every=st.integers(1, 64),
)
def test_window_excerpts_are_the_plain_ones(
    monkeypatch: pytest.MonkeyPatch,
    texts: tuple[str, str],
    sizes: tuple[int, int],
    limits: tuple[int, int],
    every: int,
) -> None:
    """Without an index and with the snapshot's (checkpoints every
    ``every`` bytes): the same excerpts as the plain function."""
    snapshot, text = texts
    monkeypatch.setattr(apply_window, "WINDOW_FROM", 0)
    monkeypatch.setattr(apply_window, "_STRETCH", sizes[0])
    monkeypatch.setattr(apply_window, "_MARGIN", sizes[1])
    monkeypatch.setattr(excerpt_window, "WINDOW_FROM", 0)
    monkeypatch.setattr(excerpt, "BEFORE_CHANGE", limits[0])
    monkeypatch.setattr(excerpt, "TAIL_LIMIT", limits[1])
    sides = (snapshot.encode("utf-8"), text.encode("utf-8"))
    window = all(excerpt_window._stretches(side) is not None for side in sides)
    event("window" if window else "plain path")
    theirs = excerpt_window._stretches(sides[0]) or []
    indexed = SnapshotScan()
    indexed.keep(sides[0], index_of(sides[0], every))
    assert indexed.index is not None
    event(f"checkpoints past 0: {len(indexed.index.offsets) > 1}")
    if window:  # apply_window.stretches, with the snapshot's scan or index
        assert theirs == apply_window.stretches(sides[0])
        with_index = excerpt_window._stretches(sides[0], scan=indexed) or []
        assert with_index == apply_window.stretches(sides[0], indexed.index)
    same = common_prefix(*sides)
    event(f"stretches kept from the snapshot: {any(e < same for _, e in theirs)}")
    try:
        plain = resumed_context(snapshot, text)
    except Exception as exc:  # the same error either way
        with pytest.raises(type(exc)):
            resumed_context_utf8(snapshot.encode("utf-8"), text.encode("utf-8"))
        with pytest.raises(type(exc)):
            resumed_context_utf8(*sides, indexed)
        return
    assert resumed_context_utf8(snapshot.encode("utf-8"), text.encode("utf-8")) == plain
    assert resumed_context_utf8(*sides, indexed) == plain


@pytest.mark.parametrize("turns", [80, 400])
def test_long_conversation_takes_the_window(turns: int) -> None:
    """A conversation past the window's size is scanned around its markers,
    and a line typed at its end gives the plain excerpts."""
    text, _ = conversation(turns)
    typed = type_line(text)
    assert len(typed.encode()) >= excerpt_window.WINDOW_FROM
    assert excerpt_window._stretches(typed.encode()) is not None
    got = resumed_context_utf8(text.encode(), typed.encode())
    assert got == resumed_context(text, typed)
    assert "One more question, typed just now?" in got


@pytest.mark.parametrize("turns", [80, 400])
def test_the_snapshots_index_spares_its_block_scan(
    monkeypatch: pytest.MonkeyPatch, turns: int
) -> None:
    """With the snapshot's index no block scan covers the snapshot: the
    scans run between the checkpoints around each stretch's ends (and after
    the stretches the document shares); the excerpts are the plain ones."""
    text, _ = conversation(turns)
    typed = type_line(text)
    data = text.encode()
    scan = SnapshotScan()
    scan.keep(data, index_of(data))
    scanned: list[int] = []
    real = apply_window.block_spans

    def spy(
        data: bytes, start: int = 0, stop: int | None = None
    ) -> list[tuple[int, int]]:
        scanned.append((len(data) if stop is None else stop) - start)
        return real(data, start, stop)

    monkeypatch.setattr(apply_window, "block_spans", spy)
    got = resumed_context_utf8(data, typed.encode(), scan)
    assert got == resumed_context(text, typed)
    assert 2 <= len(scanned) <= 3  # a stretch's ends (the document's rest)
    assert sum(scanned) < 3 * (EVERY + 8192) < len(data)
    assert excerpt_window._stretches(data, scan=scan) == excerpt_window._stretches(data)


def test_an_index_of_another_text_gives_the_whole_scan() -> None:
    """An index whose checkpoints are not after a blank line of the snapshot
    (another text of the same size) is not used: the plain stretches."""
    text, _ = conversation(80)
    typed = type_line(text)
    data = text.encode()
    shifted = b"\n" + data[:-1]  # the same size, every point one byte off
    scan = SnapshotScan()
    scan.keep(data, index_of(shifted))
    assert scan.index is not None
    assert scan.index.size == len(data)
    gaps = apply_window._gaps(data, 0)
    assert apply_window._stretches_indexed(data, scan.index, gaps, 0, 0) is None
    assert excerpt_window._stretches(data, scan=scan) == excerpt_window._stretches(data)
    got = resumed_context_utf8(data, typed.encode(), scan)
    assert got == resumed_context(text, typed)


def test_a_long_tail_is_cut_as_on_the_plain_path() -> None:
    """An edit far above the end sends the exchange's tail cut in the middle;
    only its ends are decoded, the count of characters left out is the same."""
    text, _ = conversation(400)
    at = len(text) // 3
    at = text.index("\n\n", at) + 2
    edited = text[:at] + "An early remark 😀.\n\n" + text[at:]
    got = resumed_context_utf8(text.encode(), edited.encode())
    assert got == resumed_context(text, edited)
    assert "characters you already have are not repeated" in got
