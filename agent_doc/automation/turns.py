"""A turn of ``run`` and ``watch``: the cycle with turn lock, status and hooks.

Apart from :mod:`agent_doc.automation.lifecycle` so that ``write`` does not
load the cycle and its agent backends.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from agent_doc.automation.busy import busy
from agent_doc.automation.lifecycle import post_write
from agent_doc.cycle.run import run_cycle
from agent_doc.cycle.turn_lock import acquire_turn

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agent_doc.cycle.run import RunOutcome
    from agent_doc.cycle.turn_lock import TurnRecord


def run_cycle_tracked(
    path: Path,
    *,
    command: str = "run",
    wait_s: float = 0.0,
    on_wait: Callable[[TurnRecord], None] | None = None,
    **kwargs: Any,
) -> RunOutcome:
    """``cycle.run_cycle`` holding the document's turn, with status and hooks.

    The turn lock (:mod:`agent_doc.cycle.turn_lock`) is taken first: while
    another process runs a turn on the document this raises
    :class:`~agent_doc.errors.TurnRunning` at once, or waits up to ``wait_s``
    seconds (calling ``on_wait`` once). With a shared ``room`` the room's
    turn is held too, the same way, for every host and editor of the room;
    so is it with ``served`` (a local turn of a document this host's
    ``serve`` shares: :mod:`agent_doc.share.served`), whose snapshot then
    becomes the answer once serve merged it into the room.
    Then status ``generating`` is held
    during the cycle and ``post_write`` fired after it (``post_commit`` comes
    from the cycle's own commit). A dry run calls no agent and writes
    nothing: it takes no turn and sets no status (a running turn keeps both).
    """
    path = Path(path)
    served = kwargs.pop("served", None)
    if kwargs.get("dry_run"):
        return run_cycle(path, **kwargs)
    room = kwargs.get("room") or served
    with (
        acquire_turn(path, command, wait_s=wait_s, on_wait=on_wait),
        room.hold_turn(command, wait_s, on_wait) if room else nullcontext(),
        busy(path, "generating", heartbeat=True),
    ):
        outcome = run_cycle(path, **kwargs)
        written = outcome.write
        # a buffer not joined: the editor's server moves it when it is saved
        on_save = written is not None and written.room_on_save
        if served is not None and room is served and written and not on_save:
            served.landed(written.content_ours)  # still the room's turn
    if outcome.write is not None:
        post_write(outcome.write)
    return outcome
