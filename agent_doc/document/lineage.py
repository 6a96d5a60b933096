"""Which recent texts are edits of which, and where they still agree.

The language server edits its copy of a document in place and hands out one
new ``str`` per version; the component scan, the outline's part memo and the
unsent marks keep results for an earlier version and need to know where the
new one differs from it. Comparing the two costs a pass over the whole text
(about 20 ms for 19 MB stored at 4 bytes a character); the server knows the
answer from the edits it applied. It notes it here (:func:`note_edit`) and
:func:`common_ends` answers from the notes, without reading the texts: for
texts it was not told about, or a chain it no longer holds, it answers
``None`` and the caller compares as before.

Texts are matched by identity (never hashed or compared); a text is a
``str`` or a :class:`~agent_doc.document.textlike.ChunkView` of one version
(the server notes its views as it notes its strs: the unsent marks read the
views, without a join). The notes hold the
last :data:`LIMIT` texts noted, which the memos that ask hold anyway; of a
long text (:data:`LONG_TEXT`) only the last edit is kept, so the notes keep
alive no version of it older than the one before the newest (at 4 bytes a
character, each is tens of megabytes).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agent_doc.document.textlike import TextLike

LIMIT = 4
"""Edits remembered (a memo may be a few versions behind the newest text)."""

LONG_TEXT = 1_000_000
"""Characters from which a text is long: the notes keep only its last edit,
the scan memos only its current version and the one before."""


@dataclass(frozen=True, slots=True)
class Agreement:
    """What two texts are known to share (each a lower bound of the truth)."""

    head: int
    """Their first ``head`` characters are equal."""
    tail: int
    """Their last ``tail`` characters are equal (``head + tail`` is at most
    the length of either text)."""
    head_lines: int
    """Number of ``\\n`` among the first ``head`` characters."""


_lock = threading.Lock()
_notes: list[tuple[TextLike, TextLike, Agreement]] = []
"""``(after, before, agreement)``, the newest first."""


def note_edit(
    before: TextLike, after: TextLike, head: int, tail: int, head_lines: int
) -> None:
    """Record that ``after`` is an edit of ``before`` that kept their first
    ``head`` characters (``head_lines`` newlines among them) and their last
    ``tail`` characters. A note that cannot hold (ends overlapping, negative
    sizes) is not recorded."""
    if before is after or head < 0 or tail < 0 or head_lines < 0:
        return
    if head + tail > min(len(before), len(after)):
        return
    with _lock:
        if any(note[0] is after and note[1] is before for note in _notes):
            return  # noted already (a view's join, then the document's text)
        _notes.insert(0, (after, before, Agreement(head, tail, head_lines)))
        if len(before) >= LONG_TEXT:  # the edit that made ``before`` goes
            _notes[1:] = [note for note in _notes[1:] if note[0] is not before]
        del _notes[LIMIT:]


def common_ends(old: TextLike, new: TextLike) -> Agreement | None:
    """What ``old`` and ``new`` are known to share, when ``new`` was noted as
    an edit of ``old`` (directly or through the texts noted between them);
    ``None`` when that is not known (``old is new`` included: test identity
    first)."""
    with _lock:
        notes = list(_notes)
    head = tail = -1
    lines = 0
    current = new
    for _step in range(len(notes)):
        found = next((note for note in notes if note[0] is current), None)
        if found is None:
            return None
        _after, before, agreed = found
        if head < 0 or agreed.head < head:
            head, lines = agreed.head, agreed.head_lines
        tail = agreed.tail if tail < 0 else min(tail, agreed.tail)
        if before is old:
            return Agreement(head, tail, lines)
        current = before
    return None


def edited_from(text: TextLike) -> TextLike | None:
    """The text ``text`` was last noted as an edit of (``None``: not noted)."""
    with _lock:
        return next((note[1] for note in _notes if note[0] is text), None)


def is_noted(text: TextLike) -> bool:
    """Whether ``text`` was noted as an edit of another (a text the language
    server handed out): worth remembering for the next version."""
    with _lock:
        return any(note[0] is text for note in _notes)


def let_go(old: str, view: TextLike) -> None:
    """Have every holder that registered (:func:`on_let_go`) hold ``view``
    instead of ``old`` (the same text; the language server's frozen view of
    that version, whose chunks the live document shares), and the notes
    name ``view`` where they named ``old``: the one long ``str`` of a version
    is let go once the document moved on, and what was kept for it still
    serves the next version (the notes say where the two differ)."""
    with _lock:
        _notes[:] = [
            (view if after is old else after, view if before is old else before, a)
            for after, before, a in _notes
        ]
        holders = list(_HOLDERS)
        kept_by = list(_KEEPERS)
    for holder in holders:
        holder(old, view)
    for keeper in kept_by:
        keeper.let_go(old, view)


def on_let_go(holder: Callable[[str, TextLike], None]) -> None:
    """Register ``holder(old, view)``: it replaces (or drops) what it keeps
    of ``old`` by ``view`` (see :func:`let_go`)."""
    with _lock:
        _HOLDERS.append(holder)


def tell_when_let_go(keeper: Any) -> None:
    """Register an object whose ``let_go(old, view)`` method replaces (or
    drops) what it keeps of ``old`` (see :func:`let_go`); it is held weakly,
    so a memo or a server is told for as long as it lives."""
    with _lock:
        _KEEPERS.add(keeper)


_HOLDERS: list[Callable[[str, TextLike], None]] = []
"""What :func:`let_go` tells, in order of registration."""

_KEEPERS: weakref.WeakSet[Any] = weakref.WeakSet()
"""The objects :func:`let_go` tells (:func:`tell_when_let_go`)."""


def forget_edits() -> None:
    """Forget every note (tests, benchmarks of the plain path)."""
    with _lock:
        _notes.clear()


def trim_versions(
    items: list[tuple[TextLike, Any]], size: int, versions: set[int]
) -> None:
    """Keep the first ``size`` of ``items`` (``(text, value)``, most recent
    first). When the first is a long text
    (:data:`LONG_TEXT`) noted as an edit of
    another, the versions of its document other than it and the one it was
    noted from go: the next version needs no older one,
    and each is tens of megabytes at 4 bytes a character. ``versions`` holds
    the ids of the long texts of ``items`` known as versions (noted as an
    edit, or noted from), kept current here; a short text's entries and the
    long texts never noted (a snapshot, a file read by a command) stay, up to
    ``size``."""
    text = items[0][0]
    before = edited_from(text) if len(text) >= LONG_TEXT else None
    if before is not None:
        versions.update((id(text), id(before)))
        items[:] = [
            item
            for item in items
            if item[0] is text or item[0] is before or id(item[0]) not in versions
        ]
    del items[size:]
    versions.intersection_update([id(known) for known, _value in items])
