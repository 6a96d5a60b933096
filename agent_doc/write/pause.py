"""When a live write may land: at the person's pause, within a budget (issue 12).

An answer that lands while the person types competes with keystrokes the
editor has not reported yet. So a write into a buffer being typed in waits
until the document has been quiet (no ``didChange``) for its typing setting —
frontmatter ``agent_doc_debounce_ms``, default 500 ms (spec §11) — but never
longer than a *pause budget*; past it the answer lands anyway (as minimal
edits, so the person's text is still never covered). The caller owns the
clock and the waiting; these functions only decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError

DEFAULT_QUIET_MS = 500
"""Quiet time that counts as a pause when the document sets none."""


@dataclass(frozen=True, slots=True)
class PausePolicy:
    """How one write waits for the person's pause (seconds)."""

    quiet_s: float
    """No change for this long is a pause."""
    land_by: float
    """Clock time after which the write lands without waiting any more."""


def quiet_ms_of(text: str) -> int:
    """The document's pause length: ``agent_doc_debounce_ms`` or the default.

    Unreadable frontmatter gives the default: a typo must not block a write.
    """
    if "agent_doc_debounce_ms" not in text[:4096]:
        return DEFAULT_QUIET_MS

    try:
        value = parse_frontmatter(text).debounce_ms
    except AgentDocError:
        return DEFAULT_QUIET_MS
    return value if value is not None and value > 0 else DEFAULT_QUIET_MS


def pause_policy(
    text: str, *, started: float, pause_budget_s: float, deadline: float
) -> PausePolicy:
    """The policy of a write that started at ``started`` and must end by ``deadline``.

    The write stops waiting for a pause after ``pause_budget_s``, and in any
    case early enough to leave a third of the whole time (at most 2 s) for
    landing and verifying the edit.
    """
    total = max(deadline - started, 0.0)
    reserve = min(total / 3, 2.0)
    land_by = min(started + pause_budget_s, deadline - reserve)
    return PausePolicy(quiet_s=quiet_ms_of(text) / 1000, land_by=land_by)


def wait_before_landing(
    policy: PausePolicy, *, now: float, last_change: float | None
) -> float:
    """Seconds to wait before sending the edit; ``0.0`` means send it now.

    Never typed in, or quiet for ``policy.quiet_s``: now. Otherwise until the
    pause would be complete, but not past ``policy.land_by``. Call again after
    waiting: a change in between moves the pause.
    """
    if now >= policy.land_by or last_change is None:
        return 0.0
    quiet_at = last_change + policy.quiet_s
    if now >= quiet_at:
        return 0.0
    return min(quiet_at, policy.land_by) - now
