"""Versions of a long text kept alive by the memos and the edit notes.

A 19 MB conversation with one astral character is 75 MB per ``str``; the
language server hands out one per version. The scan memos, the editor's
analysis cache and the edit notes keep at most the current version and the
one before of a long text (besides one other long text, the snapshot the marks
compare with), and short texts as many as before.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_doc.document import codeblocks
from agent_doc.document import components
from agent_doc.document import lineage
from agent_doc.document.boundary import find_boundaries
from agent_doc.editor import cache

EDITS = 6


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    lineage.forget_edits()
    components.clear_scan_memos()
    yield
    lineage.forget_edits()
    components.clear_scan_memos()


def _long_text() -> str:
    turn = "### Re: question\n\nAn answer with `code` 😀.\n\n```py\nx = 1\n```\n\n"
    body = turn * (lineage.LONG_TEXT // len(turn) + 1)
    return f"<!-- agent:exchange -->\n{body}Last question\n<!-- /agent:exchange -->\n"


def _edit(text: str, at: int, new: str) -> str:
    """``new`` inserted at ``at``, noted as the server notes a keystroke."""
    after = text[:at] + new + text[at:]
    lineage.note_edit(text, after, at, len(text) - at, text.count("\n", 0, at))
    return after


def _analyse(text: str) -> None:
    """What the server runs on each version (outline, checks, marks)."""
    components.scan_components(text)
    codeblocks.block_ranges(text)
    codeblocks.code_index(text)
    find_boundaries(text)
    cache.scan(text)
    cache.fences(text)


def _kept_long() -> list[list[str]]:
    """The long texts each memo and the notes hold, by memo."""
    memos = [components._SCANS, components._MARKERS, codeblocks._BLOCKS,
             codeblocks._INDEXES]  # fmt: skip
    held = [[t for t, _v in memo._items] for memo in memos]
    held += [[t for t, _v in entries] for entries in cache._entries.values()]
    held.append([t for note in lineage._notes for t in note[:2]])
    return [[t for t in texts if len(t) >= lineage.LONG_TEXT] for texts in held]


def test_after_many_edits_only_the_current_and_previous_long_versions_stay() -> None:
    snapshot = _long_text()  # the marks' snapshot: analysed at each version too
    text = snapshot.replace("Last question", "Last question?")
    versions = [text]
    _analyse(text)
    at = text.rindex("Last question")
    for n in range(EDITS):
        text = _edit(text, at + n, "x")
        versions.append(text)
        _analyse(text)
        _analyse(snapshot)
    current, previous = versions[-1], versions[-2]
    for texts in _kept_long():
        assert all(t is current or t is previous or t is snapshot for t in texts)
    assert all(any(t is current for t in texts) for texts in _kept_long())
    fresh = "".join([current])  # another object: the memos are not asked
    scanned = components.scan_components(current)
    components.clear_scan_memos()
    assert components.scan_components(fresh) == scanned  # the reuse stayed exact


def test_the_edit_notes_of_a_long_text_answer_for_the_last_edit() -> None:
    text = _long_text()
    second = _edit(text, 10, "x")
    third = _edit(second, 20, "y")
    assert lineage.common_ends(second, third) == lineage.Agreement(
        20, len(second) - 20, second.count("\n", 0, 20)
    )
    assert lineage.common_ends(text, third) is None  # dropped: compared instead


def test_short_texts_keep_every_entry_of_the_memo() -> None:
    long_text = _long_text()
    _analyse(long_text)
    short = [
        f"<!-- agent:a{n} -->\nshort {n}\n<!-- /agent:a{n} -->\n" for n in range(8)
    ]
    for text in short:
        codeblocks.block_ranges(text)
    kept = [t for t, _v in codeblocks._BLOCKS._items]
    assert kept == short[::-1]  # the memo's size: 8, newest first
    chain = short[0]
    for n in range(lineage.LIMIT):  # short texts keep chains of notes
        chain = _edit(chain, n, "z")
    assert lineage.common_ends(short[0], chain) is not None
