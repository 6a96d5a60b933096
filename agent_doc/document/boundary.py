"""Boundary markers: where the agent's next response lands (spec §7.22).

A boundary is a line ``<!-- agent:boundary:<id> -->`` at the end of the
``exchange`` component, after all user text. At most one exists outside code;
markers inside fenced blocks or code spans are never touched. New ids are 8
lowercase hex characters; ids of any shape are recognised (and cleaned up).
"""

from __future__ import annotations

import os
import threading

from agent_doc._runtime.record import Record
from agent_doc.document._textmemo import restart_point
from agent_doc.document.codeblocks import code_index
from agent_doc.document.codeblocks import known_block_ranges
from agent_doc.document.components import find_component
from agent_doc.document.components import scan_components
from agent_doc.document.lineage import common_ends
from agent_doc.document.lineage import is_noted
from agent_doc.document.lineage import on_let_go
from agent_doc.document.splice import splice

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.textlike import TextLike

__all__ = [
    "BOUNDARY_PREFIX",
    "Boundary",
    "boundary_marker",
    "find_boundaries",
    "insert_boundary_at_end_of_exchange",
    "new_boundary_id",
    "remove_all_boundaries",
    "reposition_boundary_before_close",
    "reposition_boundary_to_end",
]

BOUNDARY_PREFIX = "<!-- agent:boundary:"
_SUFFIX = "-->"


class Boundary(Record):
    """One boundary marker line: ``[start, end)`` (end after its ``\\n``)."""

    __slots__ = ("start", "end", "id")

    def __init__(self, start: int, end: int, id: str) -> None:
        self.start = start
        self.end = end
        self.id = id


def new_boundary_id() -> str:
    """A fresh boundary id: 8 random lowercase hex characters (as the first 8
    of a UUID4's hex, without importing ``uuid``)."""
    return os.urandom(4).hex()


def boundary_marker(boundary_id: str) -> str:
    """The marker text for ``boundary_id`` (no newline)."""
    return f"{BOUNDARY_PREFIX}{boundary_id} {_SUFFIX}"


def find_boundaries(text: str) -> list[Boundary]:
    """Every boundary marker line outside code, in document order (a text the
    language server noted as an edit of one searched last is searched from
    where the two differ on, see :func:`_known_before`)."""
    start, found = _known_before(text)
    pos = text.find(BOUNDARY_PREFIX, start)
    if pos >= 0:
        code = code_index(text)
        while pos >= 0:
            line_start = text.rfind("\n", 0, pos) + 1
            nl = text.find("\n", pos)
            line_end = len(text) if nl < 0 else nl
            body = text[line_start:line_end].strip()
            if (
                body.startswith(BOUNDARY_PREFIX)
                and body.endswith(_SUFFIX)
                and not code.contains(pos)
            ):
                ident = body[len(BOUNDARY_PREFIX) : -len(_SUFFIX)].strip()
                end = line_end + 1 if nl >= 0 else line_end
                found.append(Boundary(line_start, end, ident))
            pos = text.find(BOUNDARY_PREFIX, line_end)
    if start or is_noted(text):  # a server's version: the next one starts here
        with _lock:
            _last[:] = [(text, tuple(found)), *_last[:1]]
    return found


_lock = threading.Lock()
_last: list[tuple[TextLike, tuple[Boundary, ...]]] = []
"""The last two noted texts searched and their boundaries (other texts are
not kept: a command's document is not held past its use); a version let go
(:func:`agent_doc.document.lineage.let_go`) by its view."""


def _let_go(old: str, view: TextLike) -> None:
    with _lock:
        _last[:] = [(view if text is old else text, found) for text, found in _last]


on_let_go(_let_go)


def _known_before(text: str) -> tuple[int, list[Boundary]]:
    """Where the search of ``text`` starts, and the boundaries before it: those
    of a text searched last that ``text`` was noted as an edit of
    (:mod:`agent_doc.document.lineage`), before a line both share where no
    code span or block runs across (:func:`restart_point`); ``(0, [])``
    otherwise."""
    with _lock:
        known = list(_last)
    for old, found in known:
        if old is text:
            return len(text), list(found)
        blocks = None if common_ends(old, text) is None else known_block_ranges(old)
        if blocks is None:
            continue
        restart = restart_point(old, text, sorted(blocks[0] + blocks[1]))
        if restart:
            return restart, [b for b in found if b.start < restart]
    return 0, []


def remove_all_boundaries(text: str) -> str:
    """Remove every boundary marker line outside code (the whole line)."""
    found = find_boundaries(text)
    if not found:
        return text
    if len(found) == 1:
        return splice(text, found[0].start, found[0].end, "")
    parts: list[str] = []
    pos = 0
    for b in found:
        parts.append(text[pos : b.start])
        pos = b.end
    parts.append(text[pos:])
    return "".join(parts)


def insert_boundary_at_end_of_exchange(
    text: str, boundary_id: str | None = None
) -> str:
    """Put a boundary after the last line of the ``exchange`` component.

    The content becomes ``content.rstrip("\\n") + "\\n" + marker + "\\n"``.
    Without an exchange component the text is returned unchanged.
    """
    exchange = find_component(scan_components(text).components, "exchange")
    if exchange is None:
        return text
    marker = boundary_marker(boundary_id or new_boundary_id())
    cut = exchange.close_start  # after content.rstrip("\n"), without copying it
    while cut > exchange.open_end and text[cut - 1] == "\n":
        cut -= 1
    return splice(text, cut, exchange.close_start, "\n" + marker + "\n")


def reposition_boundary_to_end(text: str, boundary_id: str | None = None) -> str:
    """Remove every boundary, then insert one at the end of ``exchange``.

    Without ``boundary_id`` the boundary keeps the id it had (a fresh one only
    when there was none), so a boundary that does not move leaves the text as
    it was (with several, the first one's id is kept).
    """
    if boundary_id is None:
        found = find_boundaries(text)
        boundary_id = found[0].id if found else None
    return insert_boundary_at_end_of_exchange(remove_all_boundaries(text), boundary_id)


def reposition_boundary_before_close(text: str) -> str:
    """Remove every boundary, then insert one on its own line just before the
    ``exchange``'s closing marker, every line above kept as it is.

    The form for an open editor buffer: a blank line at the end of the
    exchange may be the one the person is typing on, so it stays theirs (and
    above the marker) where :func:`reposition_boundary_to_end` would trim it.
    The boundary keeps its id as there. Without an exchange component only
    the boundaries are removed.
    """
    found = find_boundaries(text)
    marker = boundary_marker(found[0].id if found else new_boundary_id())
    bare = remove_all_boundaries(text) if found else text
    exchange = find_component(scan_components(bare).components, "exchange")
    if exchange is None:
        return bare
    cut = exchange.close_start
    before = "" if bare[cut - 1] == "\n" else "\n"
    return splice(bare, cut, cut, before + marker + "\n")
