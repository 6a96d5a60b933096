"""``splice`` equals slicing and concatenating, on large and repetitive texts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.splice import splice

UNIT = st.sampled_from(["ab\n", "x", "é😀\n", "<!-- m -->\n", "\n"])


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, int, int, str]:
    text = "".join(draw(st.lists(UNIT, min_size=1, max_size=8))) * draw(
        st.sampled_from([1, 3_000, 30_000])
    )  # the large ones repeat: many windows have an earlier twin
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 600)))
    return text, start, end, draw(st.sampled_from(["", "new\n", "é" * 700]))


@given(cases())
@settings(max_examples=300, deadline=None)
def test_splice_equals_slicing(case: tuple[str, int, int, str]) -> None:
    text, start, end, new = case
    assert splice(text, start, end, new) == text[:start] + new + text[end:]


def test_a_unique_window_near_the_end_is_replaced_in_place() -> None:
    text = "".join(f"line {i}\n" for i in range(20_000))
    at = text.index("line 19990\n")
    assert splice(text, at, at + 5, "LINE") == text[:at] + "LINE" + text[at + 5 :]
