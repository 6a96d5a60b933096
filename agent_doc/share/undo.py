"""The person's own undo in a shared document: it never removes anyone else's text.

In a shared document the editor's native undo would replay its own history,
which holds the remote peers' and the agent's text as ordinary edits: ``u``
after an answer landed would delete the answer. Collaborative editors
(y-codemirror, y-prosemirror, y-monaco) undo in the CRDT instead, with a Yjs
undo manager that tracks only the local person's transactions. So does
:class:`OwnUndo`: every change the person makes enters the room's document in
a transaction whose origin is :data:`PERSON`, and the undo manager
(``pycrdt.UndoManager``) tracks that origin alone. Remote updates, the agent's
writes and the seeding of an empty room carry another origin (or none) and
are never undone; undoing an insertion removes only the characters the
person inserted, even when someone typed inside them meanwhile.

Changes made within :data:`CAPTURE_MS` of each other are one undo step (a
burst of typing, like an editor's undo block); a pause longer than that
starts a new step. Undo and redo are Yjs transactions themselves: they reach
the room (and every peer) like any other edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pycrdt import Doc
    from pycrdt import Text

PERSON = "agent-doc:person"
"""Transaction origin of the person's own changes (the only origin undone)."""
CAPTURE_MS = 500
"""Changes closer together than this (milliseconds) are one undo step."""

Clock = Callable[[], int]
"""Milliseconds, for grouping changes into steps (tests pass their own)."""


class OwnUndo:
    """Undo and redo of the person's own changes to one shared text."""

    def __init__(
        self,
        doc: Doc[Any],
        text: Text,
        *,
        capture_ms: int = CAPTURE_MS,
        clock: Clock | None = None,
    ) -> None:
        from pycrdt import UndoManager

        self.doc = doc
        """The peer's document."""
        self.text = text
        """The shared text whose changes are tracked."""
        timing: dict[str, Any] = {} if clock is None else {"timestamp": clock}
        self._manager = UndoManager(
            scopes=[text], capture_timeout_millis=capture_ms, **timing
        )
        self._manager.include_origin(PERSON)

    def can_undo(self) -> bool:
        """Whether the person has a change to undo."""
        return self._manager.can_undo()

    def can_redo(self) -> bool:
        """Whether the person has an undone change to redo."""
        return self._manager.can_redo()

    def undo(self) -> bool:
        """Undo the person's last step; ``False`` when there was none."""
        return self._manager.undo() if self.can_undo() else False

    def redo(self) -> bool:
        """Redo the person's last undone step; ``False`` when there was none."""
        return self._manager.redo() if self.can_redo() else False
