"""Per-component configuration and the mode / ``max_lines`` precedence chain.

Components are configured in ``.agent-doc/components.toml`` (one table per
component) and, in newer projects, in ``[components.<name>]`` tables of
``.agent-doc/config.toml``; a key set in ``components.toml`` wins over the same
key in ``config.toml``. Inline attributes on the open marker
(``<!-- agent:log patch=append max_lines=20 -->``) win over both. The language
server shows the resolved value and its source in hover, so the resolvers
return ``(value, source)``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.components import default_mode
from agent_doc.errors import ConfigError
from agent_doc.errors import PatchError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agent_doc.document.components import Component

MODES = ("replace", "append", "prepend")
"""The patch modes a component can have."""

COMPONENTS_TOML = "components.toml"
CONFIG_TOML = "config.toml"


class ComponentConfig(Record):
    """Configured behaviour of one component (``None`` / 0 = not configured)."""

    __slots__ = (
        "mode",
        "timestamp",
        "max_entries",
        "max_lines",
        "pre_patch",
        "post_patch",
        "mode_source",
        "max_lines_source",
    )

    def __init__(
        self,
        mode: str | None = None,
        timestamp: bool = False,
        max_entries: int = 0,
        max_lines: int | None = None,
        pre_patch: str | None = None,
        post_patch: str | None = None,
        mode_source: str = COMPONENTS_TOML,
        max_lines_source: str = COMPONENTS_TOML,
    ) -> None:
        self.mode = mode
        """``replace``, ``append`` or ``prepend`` (config key ``patch``, alias
        ``mode``)."""
        self.timestamp = timestamp
        """Prefix each ``patch`` entry with ``[YYYY-MM-DDTHH:MM:SSZ] ``."""
        self.max_entries = max_entries
        """Keep only the newest N non-empty lines after append/prepend (0 = all)."""
        self.max_lines = max_lines
        """Keep only the last N lines of the content after patching (0 = all)."""
        self.pre_patch = pre_patch
        """Shell command transforming patch content (stdin → stdout)."""
        self.post_patch = post_patch
        """Shell command run, fire-and-forget, after a patch was written."""
        self.mode_source = mode_source
        """File that set ``mode`` (shown in hover)."""
        self.max_lines_source = max_lines_source
        """File that set ``max_lines`` (shown in hover)."""


def load_component_configs(project_root: Path | None) -> dict[str, ComponentConfig]:
    """Load component configs of a project (``{}`` without a project root).

    Raises
    ------
    ConfigError
        A config file is not valid TOML or holds an invalid value; the message
        names the file and, when known, the line.
    """
    if project_root is None:
        return {}
    folder = project_root / ".agent-doc"
    configs: dict[str, ComponentConfig] = {}
    config_path = folder / CONFIG_TOML
    if config_path.is_file():
        text, data = _read_toml(config_path)
        tables = data.get("components", {})
        if not isinstance(tables, dict):
            raise ConfigError(f"{config_path}: 'components' must be a table")
        _merge_tables(configs, tables, config_path, text, prefix="components.")
    components_path = folder / COMPONENTS_TOML
    if components_path.is_file():
        text, data = _read_toml(components_path)
        _merge_tables(configs, data, components_path, text, prefix="")
    return configs


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def _merge_tables(
    configs: dict[str, ComponentConfig],
    tables: Mapping[str, Any],
    path: Path,
    text: str,
    *,
    prefix: str,
) -> None:
    for name, table in tables.items():
        if not isinstance(table, dict):
            line = _line_of(text, prefix, None, name)
            raise ConfigError(
                f"{_where(path, line)}: '{prefix}{name}' must be a table of settings"
            )
        base = configs.get(name, ComponentConfig())
        configs[name] = _parse_table(base, name, table, path, text, prefix)


def _parse_table(
    base: ComponentConfig,
    name: str,
    table: Mapping[str, Any],
    path: Path,
    text: str,
    prefix: str,
) -> ComponentConfig:
    def fail(key: str, message: str) -> ConfigError:
        where = _where(path, _line_of(text, prefix, name, key))
        return ConfigError(f"{where}: [{prefix}{name}] {key} {message}")

    changes: dict[str, Any] = {}
    for key in ("mode", "patch"):  # ``patch`` is preferred, so it comes last
        if key in table:
            value = table[key]
            if value not in MODES:
                raise fail(key, f"must be one of {', '.join(MODES)} (got {value!r})")
            changes["mode"] = value
            changes["mode_source"] = path.name
    if "timestamp" in table:
        if not isinstance(table["timestamp"], bool):
            raise fail("timestamp", "must be true or false")
        changes["timestamp"] = table["timestamp"]
    for key in ("max_entries", "max_lines"):
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise fail(key, f"must be an integer >= 0 (got {value!r})")
            changes[key] = value
            if key == "max_lines":
                changes["max_lines_source"] = path.name
    for key in ("pre_patch", "post_patch"):
        if key in table:
            if not isinstance(table[key], str):
                raise fail(key, "must be a string (a shell command)")
            changes[key] = table[key] or None
    return base._replace(**changes)


def _where(path: Path, line: int | None) -> str:
    return f"{path}" if line is None else f"{path}, line {line}"


def _line_of(text: str, prefix: str, name: str | None, key: str) -> int | None:
    """Find the 1-based line of ``key`` inside table ``[prefix+name]`` (best effort)."""
    lines = text.splitlines()
    if name is None:  # a top-level (or components.) key that should be a table
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        return next((i + 1 for i, s in enumerate(lines) if pattern.match(s)), None)
    header = re.compile(
        rf"^\s*\[\s*{re.escape(prefix)}[\"']?{re.escape(name)}[\"']?\s*\]\s*(#.*)?$"
    )
    key_re = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    inside = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("["):
            inside = bool(header.match(line))
        elif inside and key_re.match(line):
            return number
    return None


def _inline_mode(component: Component) -> str | None:
    for key in ("patch", "mode"):
        value = component.attr(key)
        if value is not None:
            if value not in MODES:
                raise PatchError(
                    f"component '{component.name}': invalid {key}={value!r} "
                    f"(expected one of {', '.join(MODES)})"
                )
            return value
    return None


def resolve_mode(
    component: Component, configs: Mapping[str, ComponentConfig]
) -> tuple[str, str]:
    """Resolve a component's patch mode and where it came from.

    Precedence: inline ``patch=`` > inline ``mode=`` > config > built-in default.
    The source is ``"inline"``, the config file's name (``"components.toml"`` or
    ``"config.toml"``) or ``"default"``.

    Raises
    ------
    PatchError
        An inline ``patch=``/``mode=`` value is not a known mode.
    """
    inline = _inline_mode(component)
    if inline is not None:
        return inline, "inline"
    config = configs.get(component.name)
    if config is not None and config.mode is not None:
        return config.mode, config.mode_source
    return default_mode(component.name), "default"


def _parse_max_lines(component: Component) -> int | None:
    raw = component.attr("max_lines")
    if raw is None:
        return None
    if not raw.isdigit():
        raise PatchError(
            f"component '{component.name}': invalid max_lines={raw!r} "
            "(expected an integer >= 0)"
        )
    return int(raw)


def resolve_max_lines(
    component: Component, configs: Mapping[str, ComponentConfig]
) -> tuple[int, str]:
    """Resolve a component's ``max_lines`` (0 = unlimited) and its source.

    Raises
    ------
    PatchError
        The inline ``max_lines=`` value is not an integer >= 0.
    """
    inline = _parse_max_lines(component)
    if inline is not None:
        return inline, "inline"
    config = configs.get(component.name)
    if config is not None and config.max_lines is not None:
        return config.max_lines, config.max_lines_source
    return 0, "default"


def validate_component_attrs(component: Component) -> list[str]:
    """Return one message per invalid inline attribute (empty when all valid)."""
    problems: list[str] = []
    for key in ("patch", "mode"):
        value = component.attr(key)
        if value is not None and value not in MODES:
            problems.append(
                f"component '{component.name}': invalid {key}={value!r} "
                f"(expected one of {', '.join(MODES)})"
            )
    try:
        _parse_max_lines(component)
    except PatchError as exc:
        problems.append(str(exc))
    return problems
