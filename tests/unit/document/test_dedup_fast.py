"""``dedup_exchange_adjacent_lines`` walks only the response, with the same result.

The oracle is the implementation before issue 17, which walked every line of
the exchange.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.apply import _find
from agent_doc.document.apply import dedup_exchange_adjacent_lines
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import code_ranges
from agent_doc.document.components import replace_content
from agent_doc.errors import AgentDocError


def walk_every_line(
    doc: str, *, protected_lines: int = 0, protected_end: int | None = None
) -> str:
    exchange = _find(doc, "exchange")
    if exchange is None:
        return doc
    code = CodeRanges(code_ranges(doc))
    kept: list[str] = []
    previous: str | None = None
    offset = exchange.open_end
    for index, line in enumerate(exchange.content(doc).splitlines(keepends=True)):
        start, offset = offset, offset + len(line)
        bare = line.rstrip("\n").rstrip()
        if code.contains(start):
            previous = None
        elif bare:
            unprotected = (
                index >= protected_lines
                if protected_end is None
                else start >= protected_end
            )
            if bare == previous and unprotected:
                continue
            previous = bare
        kept.append(line)
    return replace_content(doc, exchange, "".join(kept))


LINE = st.sampled_from(
    ["a", "a", "b", "", " ", "```", "~~~", "`x", "y`", "a  ", "<!-- c -->", "\u2028",
     "x\x85y", "\x0c", "a\r", "b\u2029b", "\x1d"]  # every other line break
)  # fmt: skip


@given(st.lists(LINE, max_size=14), st.integers(min_value=-1, max_value=16))
@settings(max_examples=400, deadline=None)
def test_same_result_as_walking_every_line(lines: list[str], protected: int) -> None:
    body = "".join(line + "\n" for line in lines)
    doc = f"# T\n<!-- agent:exchange -->\n{body}<!-- /agent:exchange -->\ntail\n"
    assert _outcome(dedup_exchange_adjacent_lines, doc, protected) == _outcome(
        walk_every_line, doc, protected
    )


def _outcome(dedup: Callable[..., str], doc: str, protected: int) -> str:
    try:
        return dedup(doc, protected_lines=protected)
    except AgentDocError as exc:  # an unclosed fence swallows the close marker
        return f"{type(exc).__name__}: {exc}"


def test_a_repeated_last_line_after_the_protected_ones_is_dropped() -> None:
    doc = "<!-- agent:exchange -->\na\nb\nb\n<!-- /agent:exchange -->\n"
    out = dedup_exchange_adjacent_lines(doc, protected_lines=2)
    assert out == "<!-- agent:exchange -->\na\nb\n<!-- /agent:exchange -->\n"


@pytest.mark.parametrize("brk", list("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
def test_every_other_line_break_counts_lines_as_splitlines_does(brk: str) -> None:
    # splitlines: "a<brk>" | "b" | "b"; with 1 protected line the last "b" repeats
    doc = f"<!-- agent:exchange -->\na{brk}b\nb\n<!-- /agent:exchange -->\n"
    expected = walk_every_line(doc, protected_lines=1)
    assert expected == doc.replace("b\nb\n", "b\n")
    assert dedup_exchange_adjacent_lines(doc, protected_lines=1) == expected


@given(st.lists(LINE, max_size=14), st.data())
@settings(max_examples=400, deadline=None)
def test_protection_up_to_an_offset(lines: list[str], data: st.DataObject) -> None:
    body = "".join(line + "\n" for line in lines)
    head = "# T\n<!-- agent:exchange -->\n"
    doc = f"{head}{body}<!-- /agent:exchange -->\ntail\n"
    starts = [len(head)]
    for line in body.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    end = data.draw(st.sampled_from(starts))

    def by_offset(doc: str, *, protected_lines: int) -> str:
        return dedup_exchange_adjacent_lines(doc, protected_end=end)

    def oracle(doc: str, *, protected_lines: int) -> str:
        return walk_every_line(doc, protected_end=end)

    assert _outcome(by_offset, doc, 0) == _outcome(oracle, doc, 0)
    if not any(c in body for c in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        count = starts.index(end)  # the same lines, counted
        assert _outcome(by_offset, doc, 0) == _outcome(
            dedup_exchange_adjacent_lines, doc, count
        )


def test_other_line_breaks_in_the_persons_text_do_not_move_the_protection() -> None:
    # the person's text "a\x0cb" is one line to a "\n" count, two to splitlines:
    # protecting up to the answer's offset keeps "b" whatever is counted
    doc = "<!-- agent:exchange -->\na\x0cb\nb\n<!-- /agent:exchange -->\n"
    answer_at = doc.index("b\n<!-- /")
    assert dedup_exchange_adjacent_lines(doc, protected_end=answer_at) == doc.replace(
        "b\nb\n", "b\n"
    )
