"""The headings of one long component after an edit inside it (issue 37).

A conversation is one component holding every heading; a keystroke in it
re-scans only the edited lines. After each random edit (text, headings,
fences, markers, comments) the outline equals the one built afresh.
"""

from __future__ import annotations

import random
import sys

import pytest

from agent_doc.editor import outline
from agent_doc.editor import outline_parts
from agent_doc.editor import part_memo

INSERTS = ["x", "\n", "#", "## typed\n", "\n### Re: more\n", "```\n", "~~~\n",
           "<!-- agent:inner -->\n", "<!-- /agent:inner -->\n", "<!-- /agent:exchange -->",
           "😀", " #", "`", "<!--", "-->", "\n\n"]  # fmt: skip


def _conversation(turns: int) -> str:
    turn = "## User\n\nQuestion {n}?\n\n### Re: turn {n}\n\nAnswer → text.\n\n```py\n# not a heading\n```\n\n"  # fmt: skip
    body = "".join(turn.format(n=n) for n in range(turns))
    return f"---\nagent_doc_session: 1\n---\n<!-- agent:exchange patch=append -->\n{body}<!-- /agent:exchange -->\n"  # fmt: skip


@pytest.mark.parametrize("copy_below", [part_memo.COPY_BELOW, 64])
@pytest.mark.parametrize("seed", range(8))
def test_patched_headings_equal_a_fresh_outline_through_random_edits(
    seed: int, copy_below: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 64: every component's entry refers to the text it lay in (no notes
    # here: plain strings, so the compare path)
    monkeypatch.setattr(part_memo, "COPY_BELOW", copy_below)
    rnd = random.Random(seed)
    text = _conversation(40)
    for _ in range(80):
        if rnd.random() < 0.7:  # mostly typing near the end, as people do
            pos = rnd.randrange(max(len(text) - 400, 0), len(text) + 1)
        else:
            pos = rnd.randrange(len(text) + 1)
        if rnd.random() < 0.25:
            text = text[:pos] + text[min(len(text), pos + rnd.randint(1, 30)) :]
        else:
            text = text[:pos] + rnd.choice(INSERTS) + text[pos:]
        assert outline(text) == outline(text, reuse=False)


def test_typing_in_the_exchange_keeps_the_heading_objects_before_it() -> None:
    text = _conversation(30)
    before = outline_parts(text)[-1].symbol.children
    at = text.rindex("<!-- /agent:exchange")
    typed = text[:at] + "One more question" + text[at:]
    after = outline_parts(typed)[-1].symbol.children
    assert after == before
    assert all(a is b for a, b in zip(after, before, strict=True))
    assert outline(typed) == outline(typed, reuse=False)


def test_typing_keeps_one_remembered_copy_of_the_component() -> None:
    # each patched part replaces the one it came from: keystrokes do not pile
    # up copies of a long component's text in the memo
    memo = sys.modules["agent_doc.editor.outline"]._PARTS
    text = _conversation(30).replace("agent:exchange", "agent:typed-in")
    outline_parts(text)
    at = text.rindex("<!-- /agent:typed-in")
    for k in range(10):
        text = text[: at + k] + "x" + text[at + k :]
        assert outline(text) == outline(text, reuse=False)
    assert [slot for slot in memo._entries if slot[0] == "typed-in"] == [
        ("typed-in", len(text) - text.index("<!-- agent:typed-in"))
    ]
