"""Status and hooks around the agent-doc operations (spec §7.23, §9.5).

Thin wrappers that the CLI and ``watch`` call instead of the bare core
functions: they hold the document's busy status (:mod:`agent_doc.automation.busy`) while
working and fire the ``post_write`` hook event (:mod:`agent_doc.store.events`)
afterwards. ``post_commit`` is fired by
:func:`agent_doc.cycle.commit.commit_and_refresh`, the one commit every path
uses. Hooks never fail an operation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agent_doc.cycle.run import RunOutcome
    from agent_doc.cycle.turn_lock import TurnRecord
    from agent_doc.write.pipeline import WriteOutcome


def post_write(outcome: WriteOutcome) -> None:
    """``on_written`` callback of the write path: fire ``post_write``."""
    from agent_doc.store.events import fire_quietly

    # a disk write's final text is the file's text: no need to read it again
    # (the event reads the session from its frontmatter only)
    text = outcome.final_start() if outcome.target == "disk" else None
    fire_quietly("post_write", outcome.path, text)


def write_with_hooks(path: Path, response: str, **kwargs: Any) -> WriteOutcome:
    """``writing.run_write`` with status ``writing`` and the ``post_write`` hook."""
    from agent_doc.automation.busy import busy
    from agent_doc.store.state import require_document
    from agent_doc.write.pipeline import run_write

    if kwargs.get("baseline_file") is not None:
        require_document(Path(kwargs["baseline_file"]))  # before any state
    with busy(Path(path), "writing"):
        outcome = run_write(path, response, **kwargs)
    post_write(outcome)
    return outcome


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
    seconds (calling ``on_wait`` once). Then status ``generating`` is held
    during the cycle and ``post_write`` fired after it (``post_commit`` comes
    from the cycle's own commit). A dry run calls no agent and writes
    nothing: it takes no turn and sets no status (a running turn keeps both).
    """
    from agent_doc.automation.busy import busy
    from agent_doc.cycle.run import run_cycle
    from agent_doc.cycle.turn_lock import acquire_turn

    path = Path(path)
    if kwargs.get("dry_run"):
        return run_cycle(path, **kwargs)
    with (
        acquire_turn(path, command, wait_s=wait_s, on_wait=on_wait),
        busy(path, "generating", heartbeat=True),
    ):
        outcome = run_cycle(path, **kwargs)
    if outcome.write is not None:
        post_write(outcome.write)
    return outcome
