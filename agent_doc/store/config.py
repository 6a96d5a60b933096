"""Global and project configuration (spec §6, §6.1, §6.2).

Global: ``$XDG_CONFIG_HOME/agent-doc/config.toml`` (default ``~/.config/...``)
with ``default_agent``, ``claude_args``, ``[agents.NAME]`` (``command``,
``args``, ``prompt_pattern``, ``transport`` = ``"cli"``, ``"acp"`` or
``"acp-ws"`` (with ``url``, ``token_file`` / ``token_env``), ``remote_root``,
``permissions`` = ``"ask"``, ``"allow"`` or ``"reject"``) and ``[terminal]``
(``command``). Project:
``<root>/.agent-doc/config.toml`` with ``tmux_session`` (and ``[components.*]``,
read by ``component_config``).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.errors import ConfigError
from agent_doc.store.access_rules import check_websocket_url
from agent_doc.store.config_keys import warn_unknown_keys
from agent_doc.store.state import atomic_write_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

CLAUDE_ARGS_ENV = "AGENT_DOC_CLAUDE_ARGS"
TRANSPORTS = ("cli", "acp", "acp-ws")
"""``cli``: one process per turn, JSON on stdout; ``acp``: Agent Client Protocol
over the program's stdio (``ssh`` included); ``acp-ws``: ACP over a WebSocket."""
ACP_TRANSPORTS = ("acp", "acp-ws")
"""The transports that speak the Agent Client Protocol."""
PERMISSION_POLICIES = ("ask", "allow", "reject")
"""How an ACP agent's permission requests are answered when nobody is asked."""


CLAUDE_INSTALL_HINT = "install Claude Code (https://docs.anthropic.com/claude-code)"


def missing_agent_hint(program: str) -> str:
    """How to get a missing agent ``program``: Claude Code's link for ``claude``."""
    if Path(program).name == "claude":
        return CLAUDE_INSTALL_HINT
    if Path(program).name == "codex":
        return "install Codex (npm install -g @openai/codex)"
    return f"install '{program}' or fix its path"


class AgentCommand(Record):
    """A configured agent backend: the program and the arguments it starts with."""

    __slots__ = (
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

    def __init__(
        self,
        command: str,
        args: tuple[str, ...] = (),
        prompt_pattern: str | None = None,
        transport: str = "cli",
        permissions: str = "ask",
        *,
        url: str | None = None,
        token_file: Path | None = None,
        token_env: str | None = None,
        remote_root: str | None = None,
    ) -> None:
        self.command = command
        """Executable name or path."""
        self.args = args
        """Arguments placed before agent-doc's own (replace the backend defaults)."""
        self.prompt_pattern = prompt_pattern
        """Regex matching the agent's input prompt line in its tmux pane."""
        self.transport = transport
        """``cli`` (argv + JSON, like claude -p) or ``acp`` (Agent Client
        Protocol)."""
        self.permissions = permissions
        """ACP permission requests: ``ask`` the person, or always
        ``allow``/``reject``."""
        self.url = url
        """``acp-ws``: the agent's WebSocket endpoint (``ws://`` or ``wss://``)."""
        self.token_file = token_file
        """``acp-ws``: the file holding the bearer token (read at connect)."""
        self.token_env = token_env
        """``acp-ws``: the environment variable holding the bearer token."""
        self.remote_root = remote_root
        """The project root as a remote agent sees it (``ssh``, ``acp-ws``):
        sent as the session's ``cwd``; the agent's file paths under it are
        mapped to the local project."""

    @property
    def speaks_acp(self) -> bool:
        """Whether this agent is driven over the Agent Client Protocol."""
        return self.transport in ACP_TRANSPORTS


class GlobalConfig(Record):
    """The user's global configuration, fully defaulted."""

    __slots__ = ("default_agent", "claude_args", "agents", "terminal_command", "path")

    def __init__(
        self,
        default_agent: str | None = None,
        claude_args: str | None = None,
        agents: Mapping[str, AgentCommand] = MappingProxyType({}),
        terminal_command: str | None = None,
        path: Path | None = None,
    ) -> None:
        self.default_agent = default_agent
        """Backend used when neither ``--agent`` nor frontmatter names one."""
        self.claude_args = claude_args
        """Extra arguments for claude (space-separated)."""
        self.agents = agents
        """``[agents.NAME]`` tables."""
        self.terminal_command = terminal_command
        """``[terminal] command`` template with a ``{tmux_command}`` placeholder."""
        self.path = path
        """The file this came from (None when absent)."""


class ProjectConfig(Record):
    """The project's ``.agent-doc/config.toml``."""

    __slots__ = ("tmux_session", "agent_command", "raw", "path")

    def __init__(
        self,
        tmux_session: str | None = None,
        agent_command: str | None = None,
        raw: Mapping[str, Any] = MappingProxyType({}),
        path: Path | None = None,
    ) -> None:
        self.tmux_session = tmux_session
        """The tmux session bound to this project."""
        self.agent_command = agent_command
        """Command line started in new agent panes (default ``claude``)."""
        self.raw = raw
        """Every key, for modules that read their own sections."""
        self.path = path
        """The file this came from (None when absent)."""


def global_config_path() -> Path:
    """Return where the global config file lives (it may not exist)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agent-doc" / "config.toml"


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file is empty, a bad one a ``ConfigError``."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read
            raise ConfigError(f"cannot read {path}: not a regular file")
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def _str_or_none(data: dict[str, Any], key: str, path: Path) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ConfigError(f"{path}: '{key}' must be a string, got {type(value).__name__}")


def _agent_command(name: str, table: Any, path: Path) -> AgentCommand:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [agents.{name}] must be a table")
    command = table.get("command", name)
    args = table.get("args", [])
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{path}: [agents.{name}] command must be a non-empty string")
    if isinstance(args, str):
        args = args.split()
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{path}: [agents.{name}] args must be a list of strings")
    pattern = table.get("prompt_pattern")
    if pattern is not None:
        check_prompt_pattern(pattern, f"{path}: [agents.{name}] prompt_pattern")
    transport = _choice(table, "transport", TRANSPORTS, f"{path}: [agents.{name}]")
    permissions = _choice(
        table, "permissions", PERMISSION_POLICIES, f"{path}: [agents.{name}]"
    )
    return AgentCommand(
        command,
        tuple(args),
        pattern,
        transport=transport,
        permissions=permissions,
        **_remote_keys(name, table, transport, path),
    )


def _remote_keys(
    name: str, table: dict[str, Any], transport: str, path: Path
) -> dict[str, Any]:
    """``url``, ``token_file``, ``token_env`` and ``remote_root``, checked."""
    where = f"{path}: [agents.{name}]"
    keys = {k: _str_or_none(table, k, path) for k in REMOTE_KEYS}
    remote_root = keys["remote_root"]
    if remote_root is not None and not remote_root.startswith("/"):
        raise ConfigError(f"{where} remote_root must be an absolute path")
    if remote_root is not None and transport not in ACP_TRANSPORTS:
        raise ConfigError(f'{where} remote_root needs transport = "acp" or "acp-ws"')
    if transport != "acp-ws":
        given = [k for k in ("url", "token_file", "token_env") if keys[k] is not None]
        if given:
            raise ConfigError(
                f'{where} {given[0]} is only read with transport = "acp-ws"'
            )
        return {"remote_root": remote_root}
    if keys["url"] is None:
        raise ConfigError(
            f'{where} transport = "acp-ws" needs url = "ws://host:port/…"'
        )
    token_file, token_env = keys["token_file"], keys["token_env"]
    if token_file is not None and token_env is not None:
        raise ConfigError(f"{where} set token_file or token_env, not both")
    url = check_websocket_url(
        keys["url"],
        has_token=token_file is not None or token_env is not None,
        where=where,
    )
    file = None
    if token_file is not None:
        file = Path(token_file).expanduser()
        file = file if file.is_absolute() else path.parent / file
    return {
        "url": url,
        "token_file": file,
        "token_env": token_env,
        "remote_root": remote_root,
    }


REMOTE_KEYS = ("url", "token_file", "token_env", "remote_root")
"""Keys of a remote ACP agent's table."""


def check_prompt_pattern(pattern: object, where: str) -> str:
    """Return ``pattern`` if it is a valid regex string; else a ``ConfigError``."""
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{where} must be a non-empty string")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"{where} is not a valid regex: {exc}") from exc
    return pattern


def _choice(
    table: dict[str, Any], key: str, allowed: tuple[str, ...], where: str
) -> str:
    value = table.get(key, allowed[0])
    if value not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        raise ConfigError(f"{where} {key} must be one of {choices}, got {value!r}")
    return str(value)


def load_global_config(path: Path | None = None) -> GlobalConfig:
    """Load the global config (defaults when the file does not exist)."""
    path = path or global_config_path()
    data = read_toml(path)
    if not data:
        return GlobalConfig(path=path if path.exists() else None)
    warn_unknown_keys(data, path, project=False)
    agents_table = data.get("agents", {})
    if not isinstance(agents_table, dict):
        raise ConfigError(f"{path}: [agents] must be a table")
    terminal = data.get("terminal", {})
    if not isinstance(terminal, dict):
        raise ConfigError(f"{path}: [terminal] must be a table")
    return GlobalConfig(
        default_agent=_str_or_none(data, "default_agent", path),
        claude_args=_str_or_none(data, "claude_args", path),
        agents={n: _agent_command(n, t, path) for n, t in agents_table.items()},
        terminal_command=_str_or_none(terminal, "command", path),
        path=path,
    )


def project_config_path(root: Path) -> Path:
    """Return the project config file of the project at ``root``."""
    return root / ".agent-doc" / "config.toml"


def load_project_config(root: Path) -> ProjectConfig:
    """Load ``<root>/.agent-doc/config.toml`` (defaults when absent)."""
    path = project_config_path(root)
    data = read_toml(path)
    if data:
        warn_unknown_keys(data, path, project=True)
    return ProjectConfig(
        tmux_session=_str_or_none(data, "tmux_session", path),
        agent_command=_str_or_none(data, "agent_command", path),
        raw=data,
        path=path if data else None,
    )


_KEY_LINE = lazy_compile(r"^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)(.*)$")


def set_project_value(root: Path, key: str, value: str) -> None:
    """Set a top-level string key in the project config, keeping other lines."""
    path = project_config_path(root)
    read_toml(path)  # refuse to edit a file that is already invalid
    lines = path.read_text("utf-8").splitlines(keepends=True) if path.exists() else []
    encoded = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    out: list[str] = []
    done = False
    in_table = False
    for line in lines:
        if line.lstrip().startswith("["):
            if not done:
                out.append(f"{key} = {encoded}\n")
                done = True
            in_table = True
        match = _KEY_LINE.match(line)
        if not in_table and match and match.group(2) == key and not done:
            out.append(f"{match.group(1)}{key}{match.group(3)}{encoded}\n")
            done = True
            continue
        out.append(line)
    if not done:
        out.append(f"{key} = {encoded}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "".join(out))


def resolve_claude_args(
    frontmatter_value: str | None, config: GlobalConfig
) -> list[str]:
    """Return claude's extra arguments: frontmatter > global config > env (§6.1)."""
    for source in (
        frontmatter_value,
        config.claude_args,
        os.environ.get(CLAUDE_ARGS_ENV),
    ):
        if source and source.strip():
            return source.split()
    return []


DEFAULT_AGENT = "claude"
"""The backend when neither the command line, the document nor the config names one."""


def resolve_agent_name(
    cli_agent: str | None, frontmatter_agent: str | None, config: GlobalConfig
) -> str:
    """Pick the backend: --agent > frontmatter ``agent`` > config > claude (§5.2)."""
    for name in (cli_agent, frontmatter_agent, config.default_agent):
        if name and name.strip():
            return name.strip()
    return DEFAULT_AGENT
