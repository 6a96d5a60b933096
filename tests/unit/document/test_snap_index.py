"""The snapshot's index changes no answer: the windowed diff, the
nothing-to-commit check, content_ours built on the bytes and the stretches of
the resumed excerpts give exactly what they give without it (random documents and edits, checkpoints every few
bytes), and an index carried from an earlier text is the index of the new one."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import apply_window
from agent_doc.document import diff_window
from agent_doc.document import excerpt_window
from agent_doc.document.apply_window import ours_utf8
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.diff import strip_comments
from agent_doc.document.diff_window import PLAIN
from agent_doc.document.diff_window import block_spans
from agent_doc.document.diff_window import same_after_utf8
from agent_doc.document.diff_window import window_diff
from agent_doc.document.linediff import common_prefix
from agent_doc.document.snap_index import Segment
from agent_doc.document.snap_index import SnapIndex
from agent_doc.document.snap_scan import carried
from agent_doc.document.snap_scan import first_break
from agent_doc.document.snap_scan import first_name
from agent_doc.document.snap_scan import index_of
from agent_doc.document.snap_scan import spliced
from agent_doc.document.snapshot_scan import SnapshotScan
from tests.unit.document.test_apply_window import CONFIGS
from tests.unit.document.test_apply_window import _plain
from tests.unit.document.test_apply_window import documents as session_documents
from tests.unit.document.test_apply_window import responses
from tests.unit.document.test_diff_window import MARKED
from tests.unit.document.test_diff_window import _bare
from tests.unit.document.test_diff_window import documents
from tests.unit.document.test_excerpt_window import sessions as excerpt_sessions

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


NAMED = [*MARKED, "<!-- agent:backlog -->\n", "see agent:icebox here\n", "agent:",
         "backlog\n", "agent:ice", "box\n"]  # fmt: skip
"""Pieces that name item lists, whole or cut (a name made or broken by an edit)."""


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "replace")


@st.composite
def edits(draw: st.DrawFn, text: str) -> str:
    """``text`` with a few pieces inserted and a stretch deleted."""
    for at, piece in sorted(
        draw(
            st.lists(
                st.tuples(st.integers(0, len(text)), st.sampled_from(NAMED)),
                max_size=3,
            )
        ),
        reverse=True,
    ):
        text = text[:at] + piece + text[at:]
    lo = draw(st.integers(0, len(text)))
    return text[:lo] + text[lo + draw(st.integers(0, 30)) :]


@pytest.mark.parametrize("window", [1, 16])
@SETTINGS
@given(base=documents, every=st.integers(1, 64), data=st.data())
def test_the_indexed_diff_is_the_plain_one(
    monkeypatch: pytest.MonkeyPatch,
    window: int,
    base: str,
    every: int,
    data: st.DataObject,
) -> None:
    monkeypatch.setattr(diff_window, "_MIN_WINDOW", window)
    current = data.draw(edits(base))
    for old, new in ((_utf8(base), _utf8(current)), (_utf8(current), _utf8(base))):
        index = index_of(old, every)
        assert window_diff(old, new, 5, index) == window_diff(old, new, 5)
        assert same_after_utf8(old, new, _bare, index) is same_after_utf8(
            old, new, _bare
        )


@SETTINGS
@given(base=documents, every=st.integers(1, 64), data=st.data())
def test_a_checkpoint_is_neutral_and_counts_the_stripped_lines_before_it(
    base: str, every: int, data: st.DataObject
) -> None:
    """Each checkpoint of an index (built whole or carried from an earlier
    text) is a neutral point of the text, with the stripped line count of the
    text before it, and the first exotic line break is where it is."""
    text = _utf8(base)
    earlier = _utf8(data.draw(edits(base)))
    old = index_of(earlier, every)
    same = common_prefix(earlier, text)
    origin = old.checkpoint(same)[0]
    index = carried(old, same, text[origin:], origin, every)
    assert_describes(index, text)
    assert index.names_at == first_name(text)  # known: it was known before


def assert_describes(index: SnapIndex, text: bytes) -> None:
    """Each checkpoint of ``index`` is a neutral point of ``text`` with the
    stripped line count before it; the first exotic break is where it is."""
    blocks = block_spans(text)
    assert index.size == len(text)
    assert index.breaks_from == first_break(text)
    assert index.names_at in (None, first_name(text))
    assert index.offsets[0] == 0
    for at, lines in zip(index.offsets[1:], index.stripped[1:], strict=True):
        assert text[at - 2 : at] == b"\n\n"
        assert diff_window._neutral(text, at, 0, blocks)
        if not index.breaks_before(at):
            assert lines == len(strip_comments(text[:at].decode()).splitlines())


@st.composite
def spliced_texts(draw: st.DrawFn) -> tuple[bytes, bytes, tuple[Segment, ...]]:
    """A text, and a new one made of stretches of it (in order) with random
    pieces between them: the new text, and where it copies the old one."""
    paragraphs = st.sampled_from([*NAMED, *["para line one\n\n"] * 6 * len(NAMED)])
    text = _utf8("".join(draw(st.lists(paragraphs, max_size=120)))).decode()
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=6)))
    new, segments = b"", []
    for lo, hi in zip(cuts[::2], cuts[1::2], strict=False):
        new += _utf8("".join(draw(st.lists(st.sampled_from(NAMED), max_size=3))))
        stretch = _utf8(text[lo:hi])
        segments.append((len(new), len(_utf8(text[:lo])), len(stretch)))
        new += stretch
    new += _utf8("".join(draw(st.lists(st.sampled_from(NAMED), max_size=3))))
    return _utf8(text), new, tuple(segments)


@SETTINGS
@given(texts=spliced_texts(), every=st.integers(1, 64), data=st.data())
def test_an_index_spliced_from_copied_stretches_describes_the_new_text(
    texts: tuple[bytes, bytes, tuple[Segment, ...]], every: int, data: st.DataObject
) -> None:
    """The write's new snapshot copies stretches of the document: their
    checkpoints are kept where the new text shows them neutral, and then
    the indexed diff of the new text is its plain diff."""
    old, new, segments = texts
    index = spliced(
        index_of(old, every), segments, len(new), lambda lo, hi: new[lo:hi], every
    )
    if first_break(old) >= 0:
        assert index is None
        return
    assert index is not None
    assert_describes(index, new)
    first = first_name(old)  # known unless a name of the old text's is before
    if first < 0 or all(first >= source for _, source, _ in segments):  # a copy
        assert index.names_at == first_name(new)
    current = _utf8(data.draw(edits(new.decode())))
    assert window_diff(new, current, 5, index) == window_diff(new, current, 5)


def test_an_index_of_another_text_is_not_used() -> None:
    old = b"para\n\n" * 30 + b"```\n\ncode\n\n```\n\n" + b"end\n\n" * 30
    index = index_of(old, 8)
    other = b"x" + old[1:]  # the same length: only the bytes differ
    shifted = b"\n" + old  # another length
    for text in (other, shifted):
        typed = text + b"typed\n"
        assert window_diff(text, typed, 3, index) == window_diff(text, typed, 3)
    assert window_diff(old, old + b"more\n", 3, index) is not PLAIN


@SETTINGS
@given(
    text=session_documents,
    response=responses,
    configs=st.sampled_from(CONFIGS),
    sizes=st.tuples(st.integers(1, 40), st.integers(0, 24), st.integers(1, 64)),
    shift=st.one_of(st.just(0), st.integers(1, 3)),
)
def test_content_ours_on_the_indexed_bytes_is_the_plain_one(
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    response: str,
    configs: dict[str, ComponentConfig],
    sizes: tuple[int, int, int],
    shift: int,
) -> None:
    """With the text's index, or (``shift``) one of another text of the same
    size (its checkpoints a few bytes off: a stale index file keyed to the
    same size, time and tail), content_ours is the plain one, never an
    error: a checkpoint used that is not after a blank line refuses the
    index (the whole scan, as the excerpts')."""
    monkeypatch.setattr(apply_window, "WINDOW_FROM", 0)
    monkeypatch.setattr(apply_window, "_STRETCH", sizes[0])
    monkeypatch.setattr(apply_window, "_MARGIN", sizes[1])
    data = text.encode("utf-8")
    index = index_of(b"\n" * shift + data[: len(data) - shift], sizes[2])
    event(f"another text's index: {shift > 0}")
    got = ours_utf8(data, response, configs, boundary_id="feedbeef", snap_index=index)
    if got is not None:
        plain = _plain(text, response, configs)
        assert plain is not None
        assert got.join() == plain.encode("utf-8")


@SETTINGS
@given(
    text=st.one_of(session_documents, excerpt_sessions),
    sizes=st.tuples(st.integers(1, 40), st.integers(0, 24), st.integers(1, 64)),
)
def test_the_excerpts_stretches_on_the_index_are_the_writes(
    monkeypatch: pytest.MonkeyPatch, text: str, sizes: tuple[int, int, int]
) -> None:
    """The excerpts cut the snapshot with its index where the write cuts
    content_ours with it (``apply_window.stretches``), and where neither
    cuts, both find no stretch."""
    monkeypatch.setattr(excerpt_window, "WINDOW_FROM", 0)
    monkeypatch.setattr(apply_window, "_STRETCH", sizes[0])
    monkeypatch.setattr(apply_window, "_MARGIN", sizes[1])
    data = text.encode("utf-8")
    scan = SnapshotScan()
    scan.keep(data, index_of(data, sizes[2]))
    assert scan.index is not None
    got = excerpt_window._stretches(data, scan=scan)
    event(f"stretches: {bool(got)}, checkpoints past 0: {len(scan.index.offsets) > 1}")
    odd = b"\r" in data or b"\0" in data or data.startswith(b"\xef\xbb\xbf")
    if got is not None:
        assert got == apply_window.stretches(data, scan.index)
    elif not odd:  # (odd bytes: the plain path, whatever the write would cut)
        assert apply_window.stretches(data, scan.index) == []


@pytest.mark.parametrize("joint", ["start", "end", "both"])
def test_a_name_across_a_copied_stretchs_edge_is_found(joint: str) -> None:
    """A name made by the bytes around a copied stretch and its own first
    or last bytes (the old text does not have it) is where the new one
    first names an item list."""
    old = b"head\n\nbacklog and more\n\n" + b"para line\n\n" * 8 + b"end agent:"
    lo = old.index(b"backlog")
    before = b"see agent:" if joint != "end" else b"x\n"
    after = b"icebox\n" if joint != "start" else b"\n"
    new = before + old[lo:] + after
    index = spliced(
        index_of(old, 4), ((len(before), lo, len(old) - lo),), len(new),
        lambda a, b: new[a:b], 4,
    )  # fmt: skip
    assert index is not None
    assert index.names_at == first_name(new)
    assert index.names_at == (4 if joint != "end" else len(new) - 13)
