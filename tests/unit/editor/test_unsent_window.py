"""UnsentBaseline (the changed window only) against FullBaseline (whole texts).

Random edit sequences on session documents with fences, comments, markers,
boundaries and carriage returns: after every edit both give the same counts
and the same marks.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.editor._textwindow import FixedText
from agent_doc.editor.unsent import FullBaseline
from agent_doc.editor.unsent import UnsentBaseline

PIECES = [
    "---\nagent_doc_session: 1\n---\n",
    "<!-- agent:exchange patch=append -->\n",
    "<!-- /agent:exchange -->\n",
    "## User\n\n",
    "### Re: the parser\n\n",
    "Some answer text → café 🚀.\n",
    "```python\n",
    "```\n",
    "<!-- a private note -->\n",
    "<!--\n",
    "-->\n",
    "[//]: # (hidden)\n",
    "<!-- agent:boundary:0123abcd -->\n",
    "`<!-- in code -->`\n",
    "- item\n",
    "\n",
    "x",
    "\r\n",
    "typed",
]

texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@st.composite
def edits(draw: st.DrawFn, text: str) -> str:
    """``text`` after one random replacement of a span by random pieces."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 40)))
    new = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=3)))
    if draw(st.booleans()):
        new = new[: draw(st.integers(0, len(new)))]
    return text[:start] + new + text[end:]


@settings(max_examples=600, deadline=None)
@given(snapshot=texts, data=st.data())
def test_window_gives_what_the_whole_texts_give(
    snapshot: str, data: st.DataObject
) -> None:
    windowed, full = UnsentBaseline(snapshot), FullBaseline(snapshot)
    current = snapshot
    for _ in range(data.draw(st.integers(1, 6))):
        current = data.draw(edits(current))
        assert windowed.changes(current) == full.changes(current)


@settings(max_examples=600, deadline=None)
@given(a=texts, b=texts, size=st.integers(1, 9))
def test_window_bounds_the_difference(a: str, b: str, size: int) -> None:
    fixed = FixedText(a, size)
    window = fixed.window(b)
    assert a[: window.start] == b[: window.start]
    assert a[window.fixed_end :] == b[window.other_end :]
    assert window.start <= window.fixed_end
    assert window.start <= window.other_end
    assert window.start in fixed.starts or window.start == len(a)


def test_one_keystroke_in_a_long_document_is_marked_where_typed() -> None:
    turn = "### Re: turn\n\nanswer → text\n\n```\ncode\n```\n\n"
    snapshot = "<!-- agent:exchange -->\n" + turn * 2000 + "<!-- /agent:exchange -->\n"
    at = snapshot.rindex("<!-- /agent")
    current = snapshot[:at] + "typed\n" + snapshot[at:]
    summary = UnsentBaseline(snapshot).changes(current)
    assert summary == FullBaseline(snapshot).changes(current)
    assert [current[m.start : m.end] for m in summary.marks] == ["typed"]
