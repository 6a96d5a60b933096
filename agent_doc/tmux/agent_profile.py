"""Which agent runs in a pane: its name, the processes that count, its prompt.

The agent started in new panes is :func:`~agent_doc.tmux.bindings.agent_command`
(``AGENT_DOC_AGENT_COMMAND`` > project ``agent_command`` > ``claude``; claude
gets ``claude_args`` first, :func:`agent_argv`). Its
*name* is the program's base name, or the script's stem when the program is an
interpreter (``python3 tools/my_agent.py`` → ``my_agent``). The input prompt
route waits for is ``[agents.NAME] prompt_pattern`` (project
``.agent-doc/config.toml`` first, then the global config; a global
``[agents.X]`` whose ``command`` is the same program counts too), else the
built-in default of the name (:data:`DEFAULT_PROMPTS`), else
:data:`GENERIC_PROMPT`. A prompt shows when one of the last
:data:`PROMPT_LINES` non-blank lines of the pane matches.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.errors import ConfigError
from agent_doc.store.config import check_prompt_pattern
from agent_doc.store.config import load_global_config
from agent_doc.store.config import load_project_config
from agent_doc.store.config import resolve_claude_args
from agent_doc.tmux.adapter import SHELLS
from agent_doc.tmux.bindings import agent_command
from agent_doc.tmux.screen import strip_ansi

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.tmux.adapter import PaneInfo
    from agent_doc.tmux.bindings import DocSession

DEFAULT_PROMPTS = {
    "claude": r"^\s*[│|]?\s*[❯>]",
    "codex": r"^\s*[│|]?\s*[›▌>]",
}
"""Built-in prompt patterns: Claude Code draws ``❯`` (older versions ``│ >``),
Codex CLI ``›`` (older versions ``▌``)."""
GENERIC_PROMPT = r"^\s*[│|]?\s*[>❯]"
"""Any other agent: a line starting with ``>`` (or ``❯``)."""
PROMPT_LINES = 6
KNOWN_AGENTS = frozenset({"claude", "codex"})
_SCRIPT_SUFFIXES = frozenset({".py", ".sh", ".js", ".mjs", ".ts", ".rb", ".pl"})
_INTERPRETERS = frozenset({
    "node", "bun", "deno", "ruby", "perl", "sh", "bash", "zsh", "dash", "fish",
    "uv", "uvx", "npx", "pypy3",
})  # fmt: skip


def _is_interpreter(program: str) -> bool:
    return program in _INTERPRETERS or program.startswith("python")


_ASSIGNMENT = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def split_assignments(argv: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """Leading ``NAME=value`` words of a command line, and the rest."""
    env: dict[str, str] = {}
    rest = list(argv)
    while rest and _ASSIGNMENT.match(rest[0]):
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
    return env, rest


def exec_line(argv: Sequence[str]) -> str:
    """The shell line a new pane runs: ``NAME=value … exec PROGRAM ARGS``."""
    env, rest = split_assignments(argv)
    assignments = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return " ".join([*assignments, "exec", shlex.join(rest)])


def program_name(argv: Sequence[str]) -> str:
    """The agent's name in ``argv``: the program, or an interpreted script's stem."""
    args = split_assignments(argv)[1]
    while args and Path(args[0]).name == "env":
        args = args[1:]
        while args and (args[0].startswith("-") or "=" in args[0]):
            args = args[1:]
    if not args:
        return ""
    program = Path(args[0]).name
    if _is_interpreter(program):
        script = next((a for a in args[1:] if not a.startswith("-")), None)
        if script is not None:
            return _stem(Path(script).name)
    return _stem(program)


def _stem(name: str) -> str:
    path = Path(name)
    return path.stem if path.suffix in _SCRIPT_SUFFIXES else name


class AgentProfile(Record):
    """The agent of a project's panes, as far as tmux routing cares."""

    __slots__ = ("name", "argv", "prompt_pattern", "prompt_source", "names")

    def __init__(
        self,
        name: str,
        argv: tuple[str, ...],
        prompt_pattern: str,
        prompt_source: str,
        names: frozenset[str],
    ) -> None:
        self.name = name
        """Short name (``claude``, ``codex``, ``my_agent``)."""
        self.argv = argv
        """The command line started in new panes."""
        self.prompt_pattern = prompt_pattern
        """Regex of the agent's input prompt line."""
        self.prompt_source = prompt_source
        """Where the pattern came from (config key or ``default``)."""
        self.names = names
        """Program names that count as "an agent" in a pane (every configured one)."""

    def has_prompt(self, screen: str) -> bool:
        """Whether the prompt shows in the last non-blank lines of ``screen``."""
        pattern = re.compile(self.prompt_pattern)
        lines = [ln for ln in strip_ansi(screen).splitlines() if ln.strip()]
        return any(pattern.search(ln) for ln in lines[-PROMPT_LINES:])

    def is_agent(self, argv: Sequence[str]) -> bool:
        """Whether a process with ``argv`` is one of the configured agents."""
        return program_name(argv) in self.names


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def agent_argv(doc: DocSession) -> list[str]:
    """The agent's argv for ``doc``: claude gets ``claude_args`` (§6.1) first."""
    try:
        argv = shlex.split(agent_command(doc.root))
    except ValueError as exc:
        raise ConfigError(f"agent command: {exc}") from exc
    if program_name(argv) != "claude":
        return argv
    extra = resolve_claude_args(doc.claude_args, load_global_config())
    return [argv[0], *extra, *argv[1:]]


def _project_pattern(root: Path, name: str) -> tuple[str, str] | None:
    config = load_project_config(root)
    agents = config.raw.get("agents")
    table = agents.get(name) if isinstance(agents, dict) else None
    if not isinstance(table, dict) or "prompt_pattern" not in table:
        return None
    where = f"{config.path}: [agents.{name}] prompt_pattern"
    return check_prompt_pattern(table["prompt_pattern"], where), where


def agent_profile(root: Path) -> AgentProfile:
    """The profile of the agent started in ``root``'s panes (config errors raise)."""
    argv = _split(agent_command(root))
    name = program_name(argv)
    config = load_global_config()
    names = set(KNOWN_AGENTS) | {name}
    source: tuple[str, str] | None = _project_pattern(root, name)
    for key, agent in config.agents.items():
        program = program_name(_split(agent.command))
        names.update({key, program})
        if source is None and agent.prompt_pattern and name in (key, program):
            source = (agent.prompt_pattern, f"[agents.{key}] prompt_pattern")
    if source is None:
        default = DEFAULT_PROMPTS.get(name)
        source = (default or GENERIC_PROMPT, "default")
    names.discard("")
    return AgentProfile(name, tuple(argv), source[0], source[1], frozenset(names))


LEGACY_AGENT_COMMANDS = frozenset({"claude", "node", "agent-doc"})
"""``pane_current_command`` values always taken for an agent (claude runs on node)."""


def pane_kind(info: PaneInfo, profile: AgentProfile) -> str:
    """``agent``, ``shell`` (the agent is gone) or ``other`` for a live pane.

    Reads the full argv of the pane's foreground process, so an agent that is a
    script (``sh agent.sh``, ``python3 my_agent.py``) counts when configured.
    """
    from agent_doc.tmux.processes import foreground_argv

    argv = foreground_argv(info.pid)
    if (argv and profile.is_agent(argv)) or info.command in LEGACY_AGENT_COMMANDS:
        return "agent"
    program = Path(argv[0]).name.lstrip("-") if argv else info.command
    bare_shell = program in SHELLS and all(a.startswith("-") for a in argv[1:])
    if bare_shell or (not argv and info.command in SHELLS):
        return "shell"
    return "other"
