"""``agent-doc doctor``: is this machine set up as the README asks?

One :class:`Check` per thing the set-up needs — Python, git and a git identity,
tmux, the configured agent programs, the language server editors start, the
private socket folders — each ``ok``, ``warn`` or ``fail`` with what to do
about it. Nothing is created or changed: folders that do not exist yet are
reported as such. It sits beside :mod:`agent_doc.editor.install` (the other
set-up command) because it asks that module where editors find the server.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Literal

from agent_doc.cycle.acp_socket import agent_token
from agent_doc.cycle.agents import build_invocation
from agent_doc.cycle.agents import resolve_agent_name
from agent_doc.editor.doctor_editors import configured_commands
from agent_doc.editor.install import server_path
from agent_doc.errors import AgentDocError
from agent_doc.errors import TmuxError
from agent_doc.store.config import AgentCommand
from agent_doc.store.config import global_config_path
from agent_doc.store.config import load_global_config
from agent_doc.store.config import missing_agent_hint
from agent_doc.store.config import project_config_path
from agent_doc.store.config import read_toml
from agent_doc.store.config_keys import claim_unknown_keys
from agent_doc.store.state import project_root_for
from agent_doc.tmux.adapter import SOCKET_ENV
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.adapter import installed_version
from agent_doc.tmux.adapter import tmux_binary
from agent_doc.tmux.bindings import agent_command

Status = Literal["ok", "warn", "fail"]

MIN_PYTHON = (3, 10)
"""The oldest Python agent-doc runs on (``requires-python``)."""

TMUX_HINT = "install tmux (apt install tmux / brew install tmux)"
GIT_HINT = "install git (apt install git / brew install git)"


@dataclass(frozen=True, slots=True)
class Check:
    """The outcome of one set-up check."""

    name: str
    status: Status
    detail: str
    fix: str | None = None
    """What to do about a ``warn`` or ``fail`` (``None`` when ok)."""

    def as_dict(self) -> dict[str, Any]:
        """The check as a JSON-ready dict."""
        return asdict(self)


def _output(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``argv`` (5 s at most); its exit code and first output line."""
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    lines = (done.stdout or done.stderr).strip().splitlines()
    return done.returncode, lines[0] if lines else ""


def check_python() -> Check:
    """Python is new enough."""
    version = ".".join(str(n) for n in sys.version_info[:3])
    if sys.version_info[:2] >= MIN_PYTHON:
        return Check("python", "ok", f"{version} ({sys.executable})")
    need = ".".join(str(n) for n in MIN_PYTHON)
    return Check(
        "python", "fail", f"{version} is too old ({sys.executable})",
        f"install Python {need} or newer and reinstall agent-doc-lsp with it",
    )  # fmt: skip


def check_git(cwd: Path) -> list[Check]:
    """git is installed and commits here would have an author."""
    git = shutil.which("git")
    if git is None:
        return [Check("git", "fail", "not found on PATH", GIT_HINT)]
    _, version = _output([git, "--version"], cwd)
    found = Check("git", "ok", f"{version.removeprefix('git version ')} ({git})")
    code, ident = _output([git, "var", "GIT_AUTHOR_IDENT"], cwd)
    if code == 0:
        author = ident.rsplit(">", 1)[0] + ">"
        return [found, Check("git identity", "ok", author)]
    fix = (
        'git config --global user.name "Your Name" && '
        'git config --global user.email "you@example.com" '
        "(or use run --no-git)"
    )
    detail = "not set: agent-doc commits every turn and git refuses without it"
    return [found, Check("git identity", "fail", detail, fix)]


def check_tmux() -> Check:
    """tmux is installed (agents in panes: route, claim, sync, start)."""
    found = installed_version()
    if found is None:
        detail = "not found on PATH: route, claim, sync and start need it"
        return Check("tmux", "warn", detail, TMUX_HINT)
    tmux, version = found
    return Check("tmux", "ok", f"{version.removeprefix('tmux ')} ({tmux})")


def check_tmux_server() -> list[Check]:
    """The tmux server ``AGENT_DOC_TMUX_SOCKET`` names, when it is set: where
    its socket is and whether it runs (``status`` and ``route`` look there)."""
    name = os.environ.get(SOCKET_ENV)
    if not name or tmux_binary() is None:
        return []
    server = Tmux.from_env()
    try:
        panes = server.probe_panes()
    except TmuxError as exc:
        return [Check("tmux server", "fail", str(exc), f"check {SOCKET_ENV}")]
    where = f"{SOCKET_ENV}={name}: {server.socket_path}"
    if panes is None:
        detail = f"{where} (not running; route and start start it)"
        return [Check("tmux server", "ok", detail)]
    return [Check("tmux server", "ok", f"{where} (running, {len(panes)} panes)")]


def _program_check(name: str, program: str, fix: str, status: Status) -> Check:
    found = shutil.which(program)
    if found is not None:
        return Check(name, "ok", found)
    return Check(name, status, f"'{program}' is not on PATH", fix)


def _socket_agent_check(name: str, agent: AgentCommand, status: Status) -> Check:
    """An ``acp-ws`` agent has no program: its token must be readable."""
    try:
        token = agent_token(name, agent)
    except AgentDocError as exc:
        fix = f"fix token_file / token_env in [agents.{name}]"
        return Check(f"agent {name}", status, str(exc), fix)
    how = "with a token" if token else "without a token (loopback)"
    return Check(f"agent {name}", "ok", f"{agent.url} ({how}; not connected)")


def check_agents(cwd: Path) -> list[Check]:
    """The default agent, every ``[agents.NAME]`` and the pane agent are installed."""
    checks: list[Check] = []
    try:
        config = load_global_config()
        default = resolve_agent_name(None, None, config)
        program = build_invocation(default, config).argv[0]
    except AgentDocError as exc:
        return [*checks, Check("agent", "fail", str(exc), "fix the config file")]
    where = config.path or "~/.config/agent-doc/config.toml"
    fix = f"{missing_agent_hint(program)}, or set default_agent in {where}"
    socket_agent = config.agents.get(default)
    if socket_agent is not None and socket_agent.transport == "acp-ws":
        checks.append(_socket_agent_check(default, socket_agent, "fail"))
    else:
        checks.append(_program_check(f"agent {default}", program, fix, "fail"))
    for name, agent in config.agents.items():
        if name == default:
            continue
        if agent.transport == "acp-ws":
            checks.append(_socket_agent_check(name, agent, "warn"))
            continue
        fix = f"{missing_agent_hint(agent.command)}, or fix [agents.{name}]"
        checks.append(_program_check(f"agent {name}", agent.command, fix, "warn"))
    try:
        pane = agent_command(project_root_for(cwd)).split()[0]
    except (AgentDocError, IndexError) as exc:
        return [*checks, Check("pane agent", "fail", str(exc), "fix agent_command")]
    fix = f"{missing_agent_hint(pane)}, or set agent_command in .agent-doc/config.toml"
    return [*checks, _program_check("pane agent", pane, fix, "warn")]


def config_key_checks(cwd: Path) -> list[Check]:
    """A ``warn`` per unknown key of the global and the project config."""
    checks: list[Check] = []
    files = [(global_config_path(), False)]
    files.append((project_config_path(project_root_for(cwd)), True))
    for path, project in files:
        try:
            data = read_toml(path)
        except AgentDocError as exc:
            checks.append(Check("config", "fail", str(exc), f"fix {path}"))
            continue
        for line in claim_unknown_keys(data, path, project=project):
            detail = line.removeprefix("agent-doc: warning: ").removesuffix("; ignored")
            checks.append(Check("config", "warn", detail, "rename or remove the key"))
    return checks


def check_language_server() -> Check:
    """``agent-doc-lsp`` is where editors look for it: on PATH, or its full path."""
    on_path = shutil.which("agent-doc-lsp")
    configured = server_path()
    if on_path is not None:
        return Check("agent-doc-lsp", "ok", on_path)
    if Path(configured).is_absolute() and os.access(configured, os.X_OK):
        detail = f"{configured} is not on PATH: an editor started elsewhere misses it"
        fix = f"add {Path(configured).parent} to PATH, or give your editor {configured}"
        return Check("agent-doc-lsp", "warn", detail, fix)
    fix = "pip install agent-doc-lsp (in the Python you run agent-doc with)"
    return Check("agent-doc-lsp", "fail", "not installed", fix)


def check_editor_servers() -> list[Check]:
    """One check per configured editor: the server command it runs can start."""
    checks: list[Check] = []
    for editor, (path, command) in configured_commands().items():
        found = shutil.which(str(Path(command).expanduser()))
        if found is not None:
            checks.append(Check(f"{editor} server", "ok", f"{found} (from {path})"))
            continue
        missing = "there" if "/" in command else "on PATH"
        detail = f"{path} runs '{command}', which is not {missing}"
        fix = f"set it to {server_path()} in {path}"
        checks.append(Check(f"{editor} server", "fail", detail, fix))
    return checks


def _private_folder(name: str, folder: Path, *, must_exist: bool) -> Check:
    """``folder`` is the user's own and closed to others (0700)."""
    try:
        info = folder.stat()
    except FileNotFoundError:
        fix = f"mkdir -m 700 -p {folder}"
        if must_exist:
            return Check(name, "fail", f"{folder} does not exist", fix)
        parent = next(p for p in folder.parents if p.exists())
        if not os.access(parent, os.W_OK | os.X_OK):
            detail = f"{folder} does not exist and {parent} is not writable"
            return Check(name, "fail", detail, fix)
        return Check(name, "ok", f"{folder} (made 0700 when first needed)")
    except OSError as exc:
        return Check(name, "fail", f"{folder}: {exc.strerror}", f"check {folder}")
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode):
        return Check(name, "fail", f"{folder} is not a folder", f"remove {folder}")
    if info.st_uid != os.getuid():
        return Check(name, "fail", f"{folder} belongs to uid {info.st_uid}",
                     f"remove {folder} (it must be yours)")  # fmt: skip
    if mode & 0o077:
        return Check(name, "fail", f"{folder} is open to others ({mode:04o})",
                     f"chmod 700 {folder}")  # fmt: skip
    return Check(name, "ok", f"{folder} ({mode:04o})")


def check_socket_dirs() -> list[Check]:
    """The folders that hold agent-doc's and tmux's sockets are private."""
    uid = os.getuid()
    checks: list[Check] = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        checks.append(_private_folder("runtime dir", Path(runtime), must_exist=True))
        sockets = Path(runtime) / "agent-doc"
    else:
        sockets = Path(f"/tmp/agent-doc-{uid}")
    checks.append(_private_folder("socket dir", sockets, must_exist=False))
    tmux_folder = Path(Tmux.from_env().socket_path).parent  # AGENT_DOC_TMUX_SOCKET
    checks.append(_private_folder("tmux socket dir", tmux_folder, must_exist=False))
    return checks


def run_checks(cwd: Path | None = None) -> list[Check]:
    """Every set-up check, in the README's order."""
    where = cwd or Path.cwd()
    return [
        check_python(),
        *check_git(where),
        check_tmux(),
        *check_tmux_server(),
        *config_key_checks(where),
        *check_agents(where),
        check_language_server(),
        *check_editor_servers(),
        *check_socket_dirs(),
    ]
