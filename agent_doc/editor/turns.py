"""Agent answers of a document, one per turn: where they are and how to undo one.

An answer starts at a ``### Re:`` heading (the template form) or a ``##
Assistant`` heading (the inline form) and runs to the next heading of depth
1–3, the next component or boundary marker line, or the end of the text.
Headings inside fenced code or HTML comment blocks are ignored. An answer is
named by its heading (without a ``(HEAD)`` suffix) and its occurrence among
answers with the same heading, so the name survives edits elsewhere and can be
looked up in old versions of the document (git history, the snapshot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_doc.document.codeblocks import CodeRanges
from agent_doc.document.codeblocks import block_ranges

_HEAD_SUFFIX = " (HEAD)"
_STOP = re.compile(
    r"^(?:(?P<answer> {0,3}(?:### Re:|## Assistant[ \t]*$))"
    r"| {0,3}#{1,3}(?=[ \t]|$)|(?P<marker><!-- /?agent:))",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Answer:
    """One agent answer: ``text[start:end]``, heading ``text[start:heading_end]``."""

    start: int
    end: int
    heading_end: int
    """End of the heading line (before its newline)."""
    heading: str
    """The heading line, stripped, without ``(HEAD)``."""
    occurrence: int
    """0-based index among earlier answers with the same heading."""


def heading_key(line: str) -> str:
    """A heading line as answers are named: stripped, no ``(HEAD)`` suffix."""
    bare = line.strip()
    return bare[: -len(_HEAD_SUFFIX)].rstrip() if bare.endswith(_HEAD_SUFFIX) else bare


def answers(text: str) -> list[Answer]:
    """Every agent answer of ``text``, in document order."""
    if "## Assistant" not in text and "### Re:" not in text:
        return []
    fences, comments = block_ranges(text)
    in_fence, in_comment = CodeRanges(fences), CodeRanges(comments)
    stops = [
        (m.start(), m.group("answer") is not None)
        for m in _STOP.finditer(text)
        if not in_fence.contains(m.start())  # marker lines are comment blocks:
        and (m.group("marker") is not None or not in_comment.contains(m.start()))
    ]
    found: list[Answer] = []
    seen: dict[str, int] = {}
    for index, (start, is_answer) in enumerate(stops):
        if not is_answer:
            continue
        end = stops[index + 1][0] if index + 1 < len(stops) else len(text)
        line_end = text.find("\n", start)
        heading_end = len(text) if line_end < 0 else line_end
        key = heading_key(text[start:heading_end])
        found.append(Answer(start, end, heading_end, key, seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
    return found


def find_answer(text: str, heading: str, occurrence: int) -> Answer | None:
    """The answer named ``heading`` (``occurrence``-th of that name), if any."""
    for answer in answers(text):
        if answer.heading == heading and answer.occurrence == occurrence:
            return answer
    return None


def answer_at(text: str, offset: int) -> Answer | None:
    """The answer holding ``offset`` (its heading line included), if any."""
    for answer in answers(text):
        if answer.start <= offset < max(answer.end, answer.heading_end + 1):
            return answer
    return None


def count_answers(text: str, heading: str) -> int:
    """How many answers of ``text`` are named ``heading``."""
    return sum(1 for answer in answers(text) if answer.heading == heading)


def remove_answer(text: str, heading: str, occurrence: int) -> str | None:
    """``text`` without that answer (``None`` when it has no such answer)."""
    answer = find_answer(text, heading, occurrence)
    if answer is None:
        return None
    return text[: answer.start] + text[answer.end :]


def _body(block: str) -> str:
    """An answer block without its heading line (headings differ by ``(HEAD)``)."""
    line_end = block.find("\n")
    return "" if line_end < 0 else block[line_end:]


def _agent_end(text: str, answer: Answer, bodies: list[str]) -> int:
    """Where the agent's own text of ``answer`` ends in ``text``: after the
    first of ``bodies`` that ``text`` holds right under the heading, else the
    block's end."""
    for body in bodies:
        if body and text.startswith(body, answer.heading_end):
            return answer.heading_end + len(body)
    return answer.end


def revert_answer(
    buffer: str,
    snapshot: str | None,
    heading: str,
    occurrence: int,
    written: str | None = None,
) -> tuple[str, str | None]:
    """Remove an answer from the live text and from the snapshot.

    Only the text the agent wrote goes: ``written``, the answer block as it
    was first committed (:func:`agent_doc.editor.turn_history.answer_as_written`),
    else the answer's block in the snapshot. Lines the person typed right
    under the answer stay, in the buffer and (already sent) in the snapshot;
    without either copy the whole answer block goes. Returns ``(new buffer,
    new snapshot or None when the snapshot lacks it)``. Raises ``LookupError``
    when the buffer has no such answer.
    """
    live = find_answer(buffer, heading, occurrence)
    if live is None:
        raise LookupError(f"no answer {heading!r} (#{occurrence + 1}) in the document")
    agent = find_answer(snapshot, heading, occurrence) if snapshot else None
    bodies = [] if written is None else [_body(written)]
    new_snapshot = None
    if agent is not None and snapshot is not None:
        bodies.append(_body(snapshot[agent.start : agent.end]))
        end = _agent_end(snapshot, agent, bodies[:1])
        new_snapshot = snapshot[: agent.start] + snapshot[end:]
    end = _agent_end(buffer, live, bodies)
    return buffer[: live.start] + buffer[end:], new_snapshot
