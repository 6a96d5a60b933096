"""The windowed diff on bytes gives exactly the plain diff (random edits of
realistic session documents: comments, fences, code spans, non-ASCII…)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import diff_window
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.diff import compute_diff
from agent_doc.document.diff_window import PLAIN
from agent_doc.document.diff_window import diff_texts
from agent_doc.document.diff_window import same_after
from agent_doc.document.diff_window import window_diff
from agent_doc.document.headings import strip_head_markers
from agent_doc.document.linediff import common_prefix

PIECES = [
    "## User\n\n", "Turn 3: what changes — and why?\n", "\n", "\n\n",
    "<!-- agent:exchange patch=append -->\n", "<!-- /agent:exchange -->\n",
    "<!-- agent:boundary:0a1b2c3d -->\n", "<!-- a note -->\n", "text <!-- tail note -->\n",
    "a <!-- mid --> b\n", "<!-- open\nacross\n\nlines -->\n", "<!--\n", "-->\n",
    "[//]: # (hidden)\n", "```python\n", "```\n", "~~~\n", "    indented <!-- x -->\n",
    "`code <!-- kept -->` and `` `ticks` ``\n", "- item `a\n", "b` <!-- c -->\n",
    "# Heading\n", "café → 🚀 é\n", "para line one\n", "para line two\n", "| a | b |\n",
    "\u2028sep\n", "\x0cform\n", "> quote <!-- q -->\n", "`\n", "<!--", "-->",
]  # fmt: skip

documents = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    """A document and a random edit of it (insert, delete or replace)."""
    text = draw(documents)
    for _ in range(draw(st.integers(1, 3))):
        lo = draw(st.integers(0, len(text)))
        hi = draw(st.integers(lo, min(len(text), lo + 40)))
        new = draw(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)))
        text2 = text[:lo] + new + text[hi:]
        text = text2 if draw(st.booleans()) else text
    return draw(documents), text


@pytest.mark.parametrize("window", [1, 16, 4096])
@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(pair=st.one_of(edited(), st.tuples(documents, documents)), data=st.data())
def test_window_diff_is_the_plain_diff(
    monkeypatch: pytest.MonkeyPatch,
    window: int,
    pair: tuple[str, str],
    data: st.DataObject,
) -> None:
    monkeypatch.setattr(diff_window, "_MIN_WINDOW", window)
    base, _ = pair
    edits = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(base)), st.sampled_from(PIECES)), max_size=3
        )
    )
    current = base
    for at, piece in sorted(edits, reverse=True):
        current = current[:at] + piece + current[at:]
    for previous, doc in ((base, current), pair, (current, base)):
        previous = previous.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        doc = doc.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        got = window_diff(previous.encode(), doc.encode(), 5)
        if got is not PLAIN:
            assert got == compute_diff(previous, doc)
        a, b = previous.encode(), doc.encode()
        if b"\r" not in b and not b.startswith(b"\xef\xbb\xbf"):  # what is known
            head = common_prefix(a, b, chunk=1 << 16)
            assert window_diff(a, b, 5, head=head, checked=True) == got


def test_bom_crlf_and_surrogate_bytes_take_the_plain_path() -> None:
    assert window_diff(b"a\n", b"\xef\xbb\xbfa\nb\n", 5) is PLAIN
    assert window_diff(b"a\r\n", b"a\r\nb\r\n", 5) is PLAIN
    assert window_diff(b"\xed\xa0\x80\n", b"\xed\xa0\x80\nb\n", 5) is PLAIN


def test_a_long_document_decodes_only_a_window() -> None:
    body = "".join(
        f"para {i} <!-- n{i} -->\n\n```\n<!-- in code -->\n```\n\n" for i in range(3000)
    )
    doc = body + "typed\n\n" + body
    old = body + body
    got = window_diff(old.encode(), doc.encode(), 5)
    assert got == compute_diff(old, doc)
    assert isinstance(got, str)
    assert "+typed\n" in got
    assert got.count("@@ -17996,9 +17996,11 @@") == 1


@pytest.mark.parametrize(
    ("previous", "current"),
    [
        ("a\n\nb\n", "a\n\nb\nc\n"),
        ("a\r\n\r\nb\r\n", "a\r\n\r\nb\r\nc\r\n"),
        ("x\n\n\ud800\n", "x\n\n\ud800\ny\n"),
        ("", "\U0001f680 <!-- c -->\n"),
    ],
)
def test_diff_texts_is_compute_diff(previous: str, current: str) -> None:
    assert diff_texts(previous, current, 5) == compute_diff(previous, current)


MARKED = [*PIECES, "### Re: x (HEAD)\n", "**Bold** (HEAD)\n", "## User (HEAD)\n",
          "<!-- agent:boundary:1234abcd -->\n", "  <!-- agent:boundary:ff -->  \n"]  # fmt: skip


def _bare(text: str) -> str:
    return remove_all_boundaries(strip_head_markers(text))


@pytest.mark.parametrize("window", [1, 16, 4096])
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    base=st.lists(st.sampled_from(MARKED), max_size=40),
    edits=st.lists(st.tuples(st.integers(0, 40), st.sampled_from(MARKED)), max_size=3),
    drops=st.lists(st.integers(0, 40), max_size=2),
)
def test_same_after_is_the_whole_comparison(
    monkeypatch: pytest.MonkeyPatch,
    window: int,
    base: list[str],
    edits: list[tuple[int, str]],
    drops: list[int],
) -> None:
    monkeypatch.setattr(diff_window, "_MIN_WINDOW", window)
    other = list(base)
    for at, piece in edits:  # markers and boundaries added, or anything
        other.insert(min(at, len(other)), piece)
    for at in drops:
        if other:
            del other[at % len(other)]
    previous, current = "".join(base), "".join(other)
    expected = _bare(previous) == _bare(current)
    assert same_after(previous, current, _bare) is expected
    assert same_after(current, previous, _bare) is expected


def test_a_window_never_ends_inside_a_line_of_the_other_side() -> None:
    """Regression (hypothesis, CI of 2026-11-29): the common suffix began with
    the newline of a marker line the other side added, and the window ended
    at a point neutral in one text but mid-line in the other, so the marker
    line was compared without its newline ("not the same" where it was)."""
    old = "## User\n\n\n## User\n\n"
    marker = "<!-- agent:boundary:0a1b2c3d -->\n"
    new = f"{marker}## User\n\n\n{marker}## User\n\n"
    assert same_after(old, new, _bare) is True
    assert same_after(new, old, _bare) is True
    assert diff_texts(old, new, 5) == compute_diff(old, new)
    assert diff_texts(new, old, 5) == compute_diff(new, old)
