"""Typed, defaulted server options (``initializationOptions`` and ``agentDoc.*``).

Settings are camelCase on the wire and snake_case in Python; :data:`FIELDS` is the
one mapping between the two. Parsing never fails: every bad value is reported in
the returned problem list and replaced by its default, so a typo in one setting
never disables the others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SECTION = "agentDoc"
"""The ``workspace/configuration`` section and ``initializationOptions`` key."""

LOG_LEVELS = ("error", "warning", "info", "debug")


@dataclass(frozen=True, slots=True)
class Options:
    """Every setting of the server, each with its default."""

    trust_workspace: bool = False
    """Allow actions that run project code (hooks, agents) for this workspace."""
    write_timeout_ms: int = 20000
    """The whole budget of a CLI write into a buffer (pause, apply, verify);
    past it the write fails with exit 75 and the response stays pending."""
    write_pause_budget_ms: int = 10000
    """How long a write waits for the person to pause typing before it lands
    anyway (as minimal edits)."""
    diagnostics_debounce_ms: int = 300
    """Quiet time after the last keystroke before diagnostics are recomputed."""
    code_lens: bool = True
    """Show the Submit / Claim / Commit / Diff lenses on session documents."""
    log_level: str = "info"
    """Lowest level forwarded as ``window/logMessage``: error, warning, info, debug."""
    workspace_symbols: bool = True
    """Scan the workspace folders for session documents (``workspace/symbol``)."""
    status_interval_ms: int = 1000
    """How often the agent state of open session documents is polled (0: never)."""
    sync: str = ""
    """``ws://host:port`` of an ``agent-doc serve``: open session documents join
    their rooms (empty: the project's ``sync``, else no sharing)."""
    sync_token_file: str = ""
    """The token file for ``sync`` (empty: the project's ``sync_token_file``,
    else ``.agent-doc/share/token``)."""
    sync_user_name: str = ""
    """The name other peers of a shared document see (empty: ``user@host``)."""


FIELDS: dict[str, str] = {
    "trustWorkspace": "trust_workspace",
    "writeTimeoutMs": "write_timeout_ms",
    "writePauseBudgetMs": "write_pause_budget_ms",
    "diagnosticsDebounceMs": "diagnostics_debounce_ms",
    "codeLens": "code_lens",
    "logLevel": "log_level",
    "workspaceSymbols": "workspace_symbols",
    "statusIntervalMs": "status_interval_ms",
    "sync": "sync",
    "syncTokenFile": "sync_token_file",
    "syncUserName": "sync_user_name",
}
"""Wire name → attribute name."""


def _check(name: str, value: Any, default: Any) -> tuple[Any, str | None]:
    """Validate one value against the type of its default."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value, None
        return default, f"{name} must be true or false, got {value!r}"
    if isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value, None
        return default, f"{name} must be a non-negative integer, got {value!r}"
    if name == "logLevel":
        if isinstance(value, str) and value.lower() in LOG_LEVELS:
            return value.lower(), None
        return (
            default,
            f"logLevel must be one of {', '.join(LOG_LEVELS)}, got {value!r}",
        )
    if isinstance(value, str):
        return value.strip(), None
    return default, f"{name} must be a string, got {value!r}"


def section_of(raw: object) -> object:
    """Return the ``agentDoc`` sub-object of ``raw`` if it has one, else ``raw``."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def parse_options(
    raw: object, base: Options | None = None
) -> tuple[Options, list[str]]:
    """Parse wire settings into :class:`Options`.

    Parameters
    ----------
    raw
        ``initializationOptions`` or a ``workspace/configuration`` result: a mapping
        of camelCase keys, optionally nested under ``agentDoc``. ``None`` means
        "nothing set".
    base
        Values for the keys ``raw`` does not set (default: all defaults).

    Returns
    -------
    tuple[Options, list[str]]
        The options, and one message per rejected value (which fell back to its
        default). Unknown keys are ignored.
    """
    base = base or Options()
    raw = section_of(raw)
    if raw is None:
        return base, []
    if not isinstance(raw, Mapping):
        return base, [f"{SECTION} settings must be an object, got {type(raw).__name__}"]
    changes: dict[str, Any] = {}
    problems: list[str] = []
    defaults = Options()
    for wire, attr in FIELDS.items():
        if wire not in raw or raw[wire] is None:
            continue
        value, problem = _check(wire, raw[wire], getattr(defaults, attr))
        changes[attr] = value
        if problem:
            problems.append(problem)
    return dataclasses.replace(base, **changes), problems


def to_wire(options: Options) -> dict[str, Any]:
    """Return ``options`` as a camelCase mapping (for docs and tests)."""
    return {wire: getattr(options, attr) for wire, attr in FIELDS.items()}
