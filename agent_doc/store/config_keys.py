"""The keys each config file knows, and one warning for a key it does not.

A typo such as ``defualt_agent`` used to be ignored without a word, so the
setting silently did nothing. Now every unknown key, at the top level or inside
``[agents.NAME]`` / ``[terminal]``, gives one line on stderr naming the key, the
file and the closest known key ("did you mean 'default_agent'?"). It stays a
warning, not an error: a config written for a newer agent-doc still loads.
Each (file, key) is reported once per process, however often the file is read.
"""

from __future__ import annotations

import sys
from pathlib import Path

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

CONVERSATION_KEYS: tuple[str, ...] = (
    "prompt",
    "compact_keep_turns",
    "compact_suggest_bytes",
    "compact_archive_dir",
    "prompt_limit_bytes",
)
"""Long-conversation keys, known in both files (the project's win)."""
GLOBAL_KEYS: tuple[str, ...] = (
    "default_agent",
    "claude_args",
    "agents",
    "terminal",
    *CONVERSATION_KEYS,
)
"""Top-level keys of the global ``config.toml``."""
GLOBAL_AGENT_KEYS: tuple[str, ...] = (
    "command",
    "args",
    "prompt_pattern",
    "transport",
    "permissions",
    "url",
    "token_file",
    "token_env",
    "remote_root",
)
"""Keys of a global ``[agents.NAME]`` table."""
TERMINAL_KEYS: tuple[str, ...] = ("command",)
"""Keys of the global ``[terminal]`` table."""
PROJECT_KEYS: tuple[str, ...] = (
    "tmux_session",
    "agent_command",
    "components",
    "agents",
    "sync",
    "sync_token_file",
    *CONVERSATION_KEYS,
)
"""Top-level keys of the project's ``.agent-doc/config.toml``."""
PROJECT_AGENT_KEYS: tuple[str, ...] = ("prompt_pattern",)
"""Keys of a project ``[agents.NAME]`` table (the rest is global only)."""

_reported: set[tuple[str, str]] = set()


def unknown_keys(
    data: dict[str, Any], *, project: bool
) -> list[tuple[str, str, tuple[str, ...]]]:
    """Every unknown key of a config: (where, key, the keys known there)."""
    top = PROJECT_KEYS if project else GLOBAL_KEYS
    found: list[tuple[str, str, tuple[str, ...]]] = [
        ("", key, top) for key in data if key not in top
    ]
    agents = data.get("agents")
    known = PROJECT_AGENT_KEYS if project else GLOBAL_AGENT_KEYS
    for name, table in agents.items() if isinstance(agents, dict) else ():
        if isinstance(table, dict):
            where = f"[agents.{name}]"
            found += [(where, key, known) for key in table if key not in known]
    terminal = data.get("terminal")
    if not project and isinstance(terminal, dict):
        found += [
            ("[terminal]", key, TERMINAL_KEYS)
            for key in terminal
            if key not in TERMINAL_KEYS
        ]
    return found


def unknown_key_message(
    path: Path, where: str, key: str, known: tuple[str, ...]
) -> str:
    """The warning line for ``key`` (without its trailing newline)."""
    import difflib

    place = f" in {where}" if where else ""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"agent-doc: warning: {path}: unknown key '{key}'{place}{hint}; ignored"


def claim_unknown_keys(data: dict[str, Any], path: Path, *, project: bool) -> list[str]:
    """The warning lines of ``data``'s unknown keys not reported yet, now reported.

    ``doctor`` shows them as its own lines; :func:`warn_unknown_keys` prints them.
    """
    lines: list[str] = []
    for where, key, known in unknown_keys(data, project=project):
        seen = (str(path), f"{where}{key}")
        if seen not in _reported:
            _reported.add(seen)
            lines.append(unknown_key_message(path, where, key, known))
    return lines


def warn_unknown_keys(data: dict[str, Any], path: Path, *, project: bool) -> None:
    """Write one stderr line per unknown key of ``data`` not reported yet."""
    for line in claim_unknown_keys(data, path, project=project):
        sys.stderr.write(line + "\n")
