"""``terminal`` (spec §7.25) and ``session`` / ``session set`` (spec §7.27).

``terminal`` opens an external terminal attached to the document's tmux session
(``tmux new-session -A -s NAME``) unless a client is already attached. The
terminal comes from ``[terminal] command`` in the global config (a template with
``{tmux_command}``), else ``$TERMINAL -e``. ``session set`` records the project's
tmux session in ``.agent-doc/config.toml`` and moves the ``agent-doc`` and stash
windows there.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import ConfigError
from agent_doc.store.config import load_global_config
from agent_doc.store.config import set_project_value
from agent_doc.tmux.adapter import SOCKET_ENV
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.adapter import is_stash_window_name
from agent_doc.tmux.bindings import AGENT_WINDOW
from agent_doc.tmux.bindings import configured_session
from agent_doc.tmux.bindings import load_doc


@dataclass(frozen=True, slots=True)
class TerminalResult:
    """What ``terminal`` did: ``opened`` False when a client was already attached."""

    session: str
    opened: bool
    argv: tuple[str, ...]


def tmux_command(session: str) -> str:
    """The attach-or-create command line for ``session`` on our server."""
    socket = os.environ.get(SOCKET_ENV)
    server = f"-L {shlex.quote(socket)} " if socket else ""
    return f"tmux {server}new-session -A -s {shlex.quote(session)}"


def terminal_argv(session: str) -> list[str]:
    """The terminal command line from config, else ``$TERMINAL -e``."""
    command = tmux_command(session)
    template = load_global_config().terminal_command
    if template:
        return shlex.split(template.replace("{tmux_command}", command))
    terminal = os.environ.get("TERMINAL")
    if terminal:
        return [*shlex.split(terminal), "-e", *shlex.split(command)]
    raise ConfigError(
        'no terminal configured: set [terminal] command = "... {tmux_command}" in '
        "~/.config/agent-doc/config.toml or export TERMINAL"
    )


def terminal(
    file: Path | str | None, session: str | None = None, tmux: Tmux | None = None
) -> TerminalResult:
    """Open a terminal attached to the session (no-op when already attached)."""
    tmux = tmux or Tmux.from_env()
    if session is None and file is not None:
        doc = load_doc(file, create=False)
        session = doc.tmux_session or configured_session(doc.root)
    session = session or "0"
    if tmux.has_session(session):
        code, out, _ = tmux.try_run("list-clients", "-t", f"={session}")
        if code == 0 and out:
            return TerminalResult(session, False, ())
    argv = terminal_argv(session)
    subprocess.Popen(  # detached: the terminal outlives us
        argv, start_new_session=True, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return TerminalResult(session, True, tuple(argv))


def session_show(root: Path) -> str | None:
    """The project's configured tmux session (``None`` when unset)."""
    return configured_session(root)


def session_set(root: Path, name: str, tmux: Tmux | None = None) -> list[str]:
    """Record ``name`` in config; move agent-doc/stash windows; return moved ids."""
    tmux = tmux or Tmux.from_env()
    old = configured_session(root)
    set_project_value(root, "tmux_session", name)
    moved: list[str] = []
    if not old or old == name or not tmux.has_session(name):
        return moved
    for window in tmux.windows():
        if window.session == old and (
            window.name == AGENT_WINDOW or is_stash_window_name(window.name)
        ):
            code, _, _ = tmux.try_run(
                "move-window", "-s", window.window_id, "-t", f"={name}:"
            )
            if code == 0:
                moved.append(window.window_id)
    return moved
