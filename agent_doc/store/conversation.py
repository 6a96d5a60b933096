"""Settings of long conversations: the prompt mode and compaction.

Read from the project's ``.agent-doc/config.toml`` first, then the global
``config.toml``, then the defaults::

    prompt = "auto"               # "auto": diff + context when resumed; "full"
    compact_keep_turns = 10       # turns ``agent-doc compact`` keeps
    compact_suggest_bytes = 1000000   # preflight suggests compact past this
    compact_archive_dir = ""      # archive folder (default: beside the document)
    prompt_limit_bytes = 200000   # ask before sending a bigger prompt; 0: never ask

A value of the wrong type is a :class:`~agent_doc.errors.ConfigError` naming
the file and the key.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import ConfigError
from agent_doc.store.config import global_config_path
from agent_doc.store.config import load_project_config
from agent_doc.store.config import read_toml

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PROMPT_MODES = ("auto", "full")
"""``auto``: a resumed session gets the diff and context; ``full``: always all."""
DEFAULT_KEEP_TURNS = 10
DEFAULT_SUGGEST_BYTES = 1_000_000
DEFAULT_PROMPT_LIMIT_BYTES = 200_000
"""About 50 k tokens: a prompt above it is sent only once the person agrees."""


class ConversationSettings(Record):
    """How long conversations are sent and compacted (fully defaulted)."""

    __slots__ = (
        "prompt",
        "keep_turns",
        "suggest_bytes",
        "archive_dir",
        "prompt_limit_bytes",
    )

    def __init__(
        self,
        prompt: str = "auto",
        keep_turns: int = DEFAULT_KEEP_TURNS,
        suggest_bytes: int = DEFAULT_SUGGEST_BYTES,
        archive_dir: str | None = None,
        prompt_limit_bytes: int = DEFAULT_PROMPT_LIMIT_BYTES,
    ) -> None:
        self.prompt = prompt
        """``auto`` or ``full`` (see :data:`PROMPT_MODES`)."""
        self.keep_turns = keep_turns
        """Turns ``compact`` leaves in the document."""
        self.suggest_bytes = suggest_bytes
        """Document size past which ``preflight`` suggests ``compact``."""
        self.archive_dir = archive_dir
        """Folder of archive documents (relative to the project root), or beside."""
        self.prompt_limit_bytes = prompt_limit_bytes
        """Prompts above this many bytes are sent only when the person agrees
        (``run --yes``, a terminal's answer, the editor's); 0: no limit."""


def _value(
    key: str, sources: list[tuple[Mapping[str, Any], Path | None]]
) -> tuple[Any, Path | None]:
    for data, path in sources:
        if key in data:
            return data[key], path
    return None, None


def _int(
    key: str, sources: list[tuple[Mapping[str, Any], Path | None]], default: int
) -> int:
    value, path = _value(key, sources)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{path}: '{key}' must be a whole number >= 0, got {value!r}")
    return value


def load_conversation_settings(root: Path) -> ConversationSettings:
    """The settings of the project at ``root`` (project > global > defaults)."""
    project = load_project_config(root)
    global_path = global_config_path()
    sources = [(project.raw, project.path), (read_toml(global_path), global_path)]
    prompt, where = _value("prompt", sources)
    if prompt is None:
        prompt = "auto"
    elif prompt not in PROMPT_MODES:
        raise ConfigError(
            f'{where}: \'prompt\' must be "auto" or "full", got {prompt!r}'
        )
    archive, where = _value("compact_archive_dir", sources)
    if archive is not None and not isinstance(archive, str):
        raise ConfigError(f"{where}: 'compact_archive_dir' must be a string")
    keep = _int("compact_keep_turns", sources, DEFAULT_KEEP_TURNS)
    return ConversationSettings(
        prompt=prompt,
        keep_turns=keep,
        suggest_bytes=_int("compact_suggest_bytes", sources, DEFAULT_SUGGEST_BYTES),
        archive_dir=archive or None,
        prompt_limit_bytes=_int(
            "prompt_limit_bytes", sources, DEFAULT_PROMPT_LIMIT_BYTES
        ),
    )
