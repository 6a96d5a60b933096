"""Compaction: move a conversation's older turns out of the document (pure).

A *turn* is one agent answer — a ``### Re:`` heading (template form) or a
``## Assistant`` heading (inline form), outside code and comment blocks — with
what precedes it back to the previous turn: its question's heading (``##
User`` or any heading of depth 1–3 that is not an answer) when there is one,
else the answer's own heading. The first turn also holds the exchange's
opening text. Text typed under an answer without a heading stays with that
answer, as in :mod:`agent_doc.editor.turns`.

:func:`plan_compaction` keeps the last N turns and replaces the ones before
them with one link line, ``*[25 earlier turns archived in
plan.archive.md](plan.archive.md)*``. A link left by an earlier compaction is
counted and replaced, so the document always holds at most one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.components import find_component
from agent_doc.document.components import scan_components
from agent_doc.document.frontmatter_text import split_frontmatter

__all__ = ["Compaction", "answer_starts", "archive_entry", "plan_compaction"]

_HEADING = lazy_compile(r"^ {0,3}(#{1,3})(?=[ \t]|$)[^\n]*", re.MULTILINE)
_ANSWER = lazy_compile(r" {0,3}(?:### Re:|## Assistant[ \t]*$)")
_LINK = lazy_compile(
    r"\*\[(\d+) earlier turns? archived in [^\]\n]*\]\([^)\n]*\)\*[ \t]*\n+"
)


@dataclass(frozen=True, slots=True)
class Compaction:
    """Replace ``text[start:end]`` (the older turns) with :attr:`link`."""

    start: int
    end: int
    replaced: str
    """``text[start:end]``: the older turns (and an earlier link line)."""
    archived: str
    """The turns moved, without an earlier compaction's link line."""
    turns: int
    """How many turns move now."""
    total: int
    """How many turns the archive holds afterwards (the link's count)."""
    link: str
    """The line (and blank line) left where the turns were."""

    def apply(self, text: str) -> str:
        """``text`` with the older turns replaced by the link."""
        return text[: self.start] + self.link + text[self.end :]

    def apply_to(self, other: str) -> str | None:
        """The same replacement in ``other`` (the snapshot, the baseline) when
        its conversation starts with the same older turns; else ``None``."""
        lo, _hi, component = _region(other)
        start = _content_start(other, lo)
        if not component:
            start = other.find(self.replaced[:64], lo)
        end = start + len(self.replaced)
        if start < 0 or other[start:end] != self.replaced:
            return None
        return other[:start] + self.link + other[end:]


def _content_start(text: str, lo: int) -> int:
    """The first line of a component's content (after its marker's newline)."""
    return lo + 1 if text.startswith("\n", lo) else lo


def _headings(text: str, lo: int, hi: int) -> list[tuple[int, bool]]:
    """``(start, is_answer)`` of the headings of ``text[lo:hi]`` outside code
    and comment blocks."""
    fences, comments = block_ranges(text)
    in_fence, in_comment = CodeRanges(fences), CodeRanges(comments)
    found = []
    for match in _HEADING.finditer(text, lo, hi):
        at = match.start()
        if in_fence.contains(at) or in_comment.contains(at):
            continue
        found.append((at, _ANSWER.match(text, at) is not None))
    return found


def answer_starts(text: str, lo: int = 0, hi: int | None = None) -> list[int]:
    """Where each answer heading of ``text[lo:hi]`` starts, in order."""
    end = len(text) if hi is None else hi
    return [at for at, answer in _headings(text, lo, end) if answer]


def _turn_starts(text: str, lo: int, hi: int) -> list[int]:
    """Where each turn of ``text[lo:hi]`` starts (see the module docstring)."""
    starts: list[int] = []
    question: int | None = None
    for at, is_answer in _headings(text, lo, hi):
        if not is_answer:
            question = at if question is None else question
            continue
        starts.append(at if question is None else question)
        question = None
    return starts


def _region(text: str) -> tuple[int, int, bool]:
    """The conversation's span: the ``exchange`` component's content, else the
    body; and whether it is a component."""
    exchange = find_component(scan_components(text).components, "exchange")
    if exchange is not None:
        return exchange.open_end, exchange.close_start, True
    block = split_frontmatter(text)
    return (block.body_start if block is not None else 0), len(text), False


def count_turns(text: str) -> int:
    """How many turns the conversation of ``text`` holds (what compact counts)."""
    lo, hi, _ = _region(text)
    return len(_turn_starts(text, lo, hi))


def plan_compaction(text: str, keep: int, archive_link: str) -> Compaction | None:
    """The compaction keeping the last ``keep`` turns of ``text``; ``None``
    when there are no more than ``keep`` turns. ``archive_link`` is the
    archive's path as the document links it."""
    lo, hi, component = _region(text)
    starts = _turn_starts(text, lo, hi)
    if len(starts) <= keep:
        return None
    # without an exchange component the conversation starts at its first turn
    start = _content_start(text, lo) if component else starts[0]
    end = starts[len(starts) - keep]
    replaced = text[start:end]
    old = _LINK.match(replaced)
    earlier = int(old.group(1)) if old is not None else 0
    archived = replaced[old.end() :] if old is not None else replaced
    moved = len(starts) - keep
    total = earlier + moved
    name = archive_link.rsplit("/", 1)[-1]
    plural = "turn" if total == 1 else "turns"
    link = f"*[{total} earlier {plural} archived in {name}]({archive_link})*\n\n"
    return Compaction(start, end, replaced, archived, moved, total, link)


def archive_entry(compaction: Compaction, stamp: str, document: str) -> str:
    """The text appended to the archive for one compaction."""
    body = compaction.archived.rstrip("\n")
    what = "turn" if compaction.turns == 1 else "turns"
    note = f"<!-- compacted from {document} at {stamp}: {compaction.turns} {what} -->"
    return f"{note}\n{body}\n\n"
