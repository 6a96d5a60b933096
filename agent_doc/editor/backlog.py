"""The backlog in the editor: malformed item lines, state toggles, id completion.

Over the ``agent:backlog`` and ``agent:icebox`` components
(:mod:`agent_doc.document.backlog`): a diagnostic for an item line the
tidy would not read as meant (an unknown box, an id that is not one, an id
used twice, a box without its bullet); code actions that move the item
under the cursor along the state matrix, rewriting only its box (the id
stays); completion of ``#id`` anywhere in the document, with the item's
text beside it. Documents without such a component cost one substring test
(a long one: a look at its memoised component scan).
"""

from __future__ import annotations

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.document.backlog import ITEM_COMPONENTS
from agent_doc.document.backlog import OPEN
from agent_doc.document.backlog import STATES
from agent_doc.document.backlog import Item
from agent_doc.document.backlog import render_line
from agent_doc.document.backlog import split_items
from agent_doc.document.backlog import stray_token
from agent_doc.document.backlog_ops import TRANSITIONS
from agent_doc.document.components import Component
from agent_doc.editor.cache import scan
from agent_doc.editor.model import Completion
from agent_doc.editor.model import Fix
from agent_doc.editor.model import Problem
from agent_doc.editor.model import TextChange

_BARE_BOX = lazy_compile(r"^\[[ /xX]\] ")
_ID_PREFIX = lazy_compile(r"(?<=[\s\[(])#([A-Za-z0-9_-]*)$")
ACTION_TITLES = {
    "done": "Mark done [x] (keeps the id)",
    "gate": "Mark gated [/] (keeps the id)",
    "ungate": "Back to open [ ] (keeps the id)",
}


def _lists(text: str) -> list[Component]:
    if (
        len(text) < _SCAN_FIRST
        and "agent:backlog" not in text
        and ("agent:icebox" not in text)
    ):
        return []
    # a long text: its (memoised) scan is cheaper than two substring searches
    return [c for c in scan(text).components if c.name in ITEM_COMPONENTS]


_SCAN_FIRST = 1 << 20
"""Texts this long skip the substring test: the diagnostics have scanned them."""


def _line_problem(line: str, at: int) -> Problem | None:
    bad = stray_token(line)
    if bad is not None:
        token = line[bad[0] : bad[1]]
        if token.startswith("[#"):
            why = f"{token} is not an id: 1-32 letters, digits, _ or -"
        elif len(token) <= 3:
            why = f"{token} is not a box: [ ] open, [/] gated, [x] done"
        else:
            return None  # a link or a note in brackets: text
        return Problem(at + bad[0], at + bad[1], why, "warning", "backlog-item")
    if _BARE_BOX.match(line):
        why = "an item needs its bullet: - [ ] …"
        return Problem(at, at + 3, why, "warning", "backlog-item")
    return None


def item_problems(text: str) -> list[Problem]:
    """Malformed item lines in the document's backlog and icebox."""
    out: list[Problem] = []
    for component in _lists(text):
        content = component.content(text)
        at = component.open_end
        seen: set[str] = set()
        for line in content.splitlines(keepends=True):
            problem = _line_problem(line, at)
            if problem is not None:
                out.append(problem)
            _head, items = split_items(line)
            item = items[0] if items else None
            if item is not None and item.id is not None:
                if item.id in seen:
                    start = at + line.find(f"#{item.id}")
                    why = f"id #{item.id} is used twice in the {component.name}"
                    out.append(
                        Problem(
                            start,
                            start + len(item.id) + 1,
                            why,
                            "warning",
                            "backlog-id",
                        )
                    )
                seen.add(item.id)
            at += len(line)
    return out


def _item_at(text: str, offset: int) -> tuple[Item, int] | None:
    """The item whose line holds ``offset``, with that line's start."""
    for component in _lists(text):
        if not component.open_end <= offset <= component.close_start:
            continue
        content = component.content(text)
        starts = [component.open_end]
        for line in content.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for item in split_items(content)[1]:
            start = starts[item.first]
            if start <= offset <= start + len(item.lines[0].rstrip("\n")):
                return item, start
    return None


def item_actions(text: str, start: int, _end: int) -> list[Fix]:
    """State changes the matrix allows for the item at ``start`` (one line
    rewritten: its box; the id stays, given one when it had none)."""
    found = _item_at(text, start)
    if found is None or item_id_missing(found[0]):
        return []
    item, line_start = found
    state = item.state or OPEN
    out = []
    for op, row in TRANSITIONS.items():
        target = row.get(state)
        if target is None or target == state:
            continue
        line = render_line(target, item.id or "", item.text)
        old_end = line_start + len(item.lines[0].rstrip("\n"))
        change = TextChange(line_start, old_end, line)
        out.append(
            Fix(
                ACTION_TITLES[op], "backlog-item", line_start, old_end, (change,), False
            )
        )
    return out


def item_id_missing(item: Item) -> bool:
    """True for an item without an id yet (preflight gives it one first)."""
    return item.id is None


def has_id_prefix(line_prefix: str) -> bool:
    """Whether a line's text before the cursor ends in an item id being typed."""
    return _ID_PREFIX.search(line_prefix) is not None


def id_completions(text: str, offset: int) -> list[Completion]:
    """The items' ids after a ``#`` at ``offset`` (not a heading's ``#``)."""
    line_start = text.rfind("\n", 0, offset) + 1
    found = _ID_PREFIX.search(text[line_start:offset])
    if found is None or not _lists(text):
        return []
    typed = found.group(1)
    start = offset - len(typed)
    out = []
    for component in _lists(text):
        for item in split_items(component.content(text))[1]:
            if item.id is None or not item.id.startswith(typed):
                continue
            state = STATES.get(item.state or OPEN, "open")
            out.append(
                Completion(
                    item.id,
                    item.id,
                    "value",
                    f"{state} · {component.name}",
                    item.text,
                    start,
                    offset,
                )
            )
    return out
