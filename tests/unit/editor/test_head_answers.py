"""Answers told from a document's start and the cursor's line, against the
same answers from the whole text, on the same inputs: ``no_completions`` (a
space typed in prose) and ``is_session_head`` (the code lenses)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.editor import completions
from agent_doc.editor.assist import COMPLETION_HEAD
from agent_doc.editor.assist import no_completions
from agent_doc.editor.outline import is_session_document
from agent_doc.editor.outline import is_session_head

TOKENS = [
    "---\n", "\n---\n", "agent: claude\n", "mode: ", "a", " ", "\n", "\r\n", "😀",
    "<!-- agent:", "<!-- /agent:", "exchange", " patch=", "append", "-->", "#", "[#",
    "(#", "- [ ] ", "<!-- agent:backlog -->\n- [ ] #abc task\n<!-- /agent:backlog -->\n",
]  # fmt: skip
texts = st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)


def _fast(text: str, offset: int) -> bool:
    line_prefix = text[text.rfind("\n", 0, offset) + 1 : offset]
    return no_completions(text[:COMPLETION_HEAD], line_prefix, offset)


@settings(max_examples=400, deadline=None)
@given(text=texts, data=st.data())
def test_no_completions_only_where_the_whole_text_has_none(text, data):
    offset = data.draw(st.integers(0, len(text)), label="offset")
    if _fast(text, offset):
        assert completions(text, offset) == []


def test_prose_and_a_space_after_the_frontmatter_need_no_whole_text():
    text = "---\nagent: claude\n---\n\n<!-- agent:exchange -->\nHello there \n"
    assert _fast(text, text.index("there ") + 6)
    assert _fast("plain prose, no frontmatter ", 28)


def test_the_frontmatter_a_marker_and_an_id_ask_the_whole_text():
    text = "---\nagent: \n---\n<!-- agent:exchange patch=\nsee [#\n"
    assert completions(text, text.index("agent: ") + 7)  # inside the frontmatter
    assert not _fast(text, text.index("agent: ") + 7)
    assert not _fast(text, text.index("patch=") + 6)
    assert not _fast(text, text.index("[#") + 2)


def test_a_frontmatter_longer_than_the_head_asks_the_whole_text():
    text = "---\n" + "k: v\n" * (COMPLETION_HEAD // 5) + "---\nprose \n"
    offset = len(text) - 1
    assert not _fast(text, offset)  # where it ends is past the head
    assert _fast("---\nk: v\n---\nprose \n", len("---\nk: v\n---\nprose "))


@settings(max_examples=300, deadline=None)
@given(text=texts, cut=st.integers(0, 200))
def test_is_session_head_only_where_the_whole_text_is_one(text, cut):
    if is_session_head(text[:cut]):
        assert is_session_document(text)


def test_a_session_frontmatter_in_the_head_is_enough():
    text = "---\nagent_doc_session: abc\n---\n" + "prose\n" * 1000
    assert is_session_head(text[:COMPLETION_HEAD])
    assert not is_session_head("---\nagent_doc_session: abc\n")  # not closed yet
    assert not is_session_head("---\ntitle: x\n---\n<!-- agent:exchange -->\n")
