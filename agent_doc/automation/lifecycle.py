"""Status and hooks around the agent-doc operations (spec §7.23, §9.5).

Thin wrappers that the CLI and ``watch`` call instead of the bare core
functions (a turn's are in :mod:`agent_doc.automation.turns`): they hold the
document's busy status (:mod:`agent_doc.automation.busy`) while working and
fire the ``post_write`` hook event (:mod:`agent_doc.store.events`)
afterwards. ``post_commit`` is fired by
:func:`agent_doc.cycle.commit.commit_and_refresh`, the one commit every path
uses. Hooks never fail an operation.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.automation.busy import busy
from agent_doc.store.events import fire_quietly
from agent_doc.store.state import require_document
from agent_doc.write.pipeline import run_write

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from agent_doc.write.pipeline import WriteOutcome


def post_write(outcome: WriteOutcome) -> None:
    """``on_written`` callback of the write path: fire ``post_write``."""
    # a disk write's final text is the file's text: no need to read it again
    # (the event reads the session from its frontmatter only)
    text = outcome.final_start() if outcome.target == "disk" else None
    fire_quietly("post_write", outcome.path, text)


def write_with_hooks(path: Path, response: str, **kwargs: Any) -> WriteOutcome:
    """``writing.run_write`` with status ``writing`` and the ``post_write`` hook."""
    if kwargs.get("baseline_file") is not None:
        require_document(Path(kwargs["baseline_file"]))  # before any state
    with busy(Path(path), "writing"):
        outcome = run_write(path, response, **kwargs)
    post_write(outcome)
    return outcome
