"""``session`` / ``session set NAME`` and ``terminal`` (§7.25, §7.27)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument
from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

session_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    name="session", help="Show or set the project's tmux session.",
    invoke_without_command=True,
)  # fmt: skip
RootOpt = Annotated[Path | None, typer.Option("--root", help="Project root.")]


@session_app.callback()
def session(ctx: typer.Context, root: RootOpt = None) -> None:
    """Show the configured tmux session (or "(none)")."""
    if ctx.invoked_subcommand is not None:
        return
    from agent_doc.cli._output import emit
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.terminal import session_show

    emit(f"{session_show(project_root_for(root or Path.cwd())) or '(none)'}\n")


@session_app.command("set")
def session_set(name: str, root: RootOpt = None) -> None:
    """Record NAME as the project's session and move agent windows there."""
    from agent_doc.cli._output import info
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.terminal import session_set as core_set

    moved = core_set(project_root_for(root or Path.cwd()), name)
    info(f"tmux session set to {name}; moved {len(moved)} window(s)")


def terminal(
    file: Annotated[Path | None, document_argument()] = None,
    session_name: Annotated[
        str | None, typer.Option("--session", help="tmux session name.")
    ] = None,
) -> None:
    """Open an external terminal attached to the document's tmux session."""
    from agent_doc.cli._output import info
    from agent_doc.tmux.terminal import terminal as core_terminal

    result = core_terminal(file, session_name)
    if not result.opened:
        info(f"session {result.session} already has an attached client")


def register(app: typer.Typer) -> None:
    """Add ``session`` and ``terminal`` to the app."""
    app.add_typer(session_app)
    app.command("terminal")(terminal)
