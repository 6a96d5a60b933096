"""Named crash points: a test-only fault hook for the exactly-once sweeps.

Every durable step of a command that lands an answer, moves an archive or
records a turn calls :func:`crash_point` with a stable dotted name
(``"write.after_document"``). When the environment variable
``AGENT_DOC_CRASH_AT`` names that point, the process ends there at once with
``os._exit(CRASH_EXIT)`` — no ``finally``, no ``atexit``, no flush: what a
``kill -9`` at that instant leaves on disk. ``AGENT_DOC_CRASH_AT=name@N`` ends
it at the N-th time the point is reached (1-based), for a point inside a loop.

The variable is read once, on the first call; with it unset a call is one
comparison. :data:`KNOWN_POINTS` collects every name a module declared with
:func:`declare_points`, so a test can sweep them all and a test can check that
no point is swept that the code never reaches.
"""

from __future__ import annotations

import os

#: The exit status of a process ended at a crash point (128 + SIGKILL's 9,
#: what a shell reports for a process killed by ``kill -9``).
CRASH_EXIT = 137

ENV_VAR = "AGENT_DOC_CRASH_AT"

_read = False
_target: tuple[str, int] | None = None
_hits: dict[str, int] = {}

#: Every crash point a module declared, by name: ``{point: description}``.
KNOWN_POINTS: dict[str, str] = {}


def declare_points(points: dict[str, str]) -> None:
    """Register crash point names (``{name: what is durable there}``) so a
    sweep can enumerate them; called once at a module's import."""
    KNOWN_POINTS.update(points)


def _parse(value: str) -> tuple[str, int]:
    name, _, nth = value.partition("@")
    return name.strip(), int(nth) if nth.strip().isdigit() else 1


def crash_point(name: str) -> None:
    """End the process now, as ``kill -9`` would, when ``AGENT_DOC_CRASH_AT``
    names this point (and this is its N-th hit); otherwise do nothing."""
    global _target, _read
    if not _read:
        value = os.environ.get(ENV_VAR, "")
        _target = _parse(value) if value else None
        _read = True
    if _target is None:
        return
    target_name, nth = _target
    if name != target_name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] == nth:
        os._exit(CRASH_EXIT)


def reset_for_tests() -> None:
    """Forget the variable read and the hit counts (for in-process tests that
    set ``AGENT_DOC_CRASH_AT`` between calls)."""
    global _target, _read
    _target, _read = None, False
    _hits.clear()
