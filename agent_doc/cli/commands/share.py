"""``agent-doc share token``: the token clients of ``agent-doc serve`` send."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

share_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="Shared rooms (agent-doc serve): the access token.",
)


@share_app.command("token")
def token(
    rotate: Annotated[
        bool,
        typer.Option("--rotate", help="Replace the token; old clients are refused."),
    ] = False,
    root: Annotated[
        Path | None,
        typer.Option("--root", help="Project root (default: the project of the cwd)."),
    ] = None,
) -> None:
    """Print the project's token (created when missing), or rotate it.

    The token is kept in .agent-doc/share/token (mode 0600). A running
    agent-doc serve reads it on every connect: after --rotate, clients holding
    the old token are refused from their next connection on.
    """
    from agent_doc.cli._output import emit
    from agent_doc.share.access import ensure_token
    from agent_doc.share.access import rotate_token
    from agent_doc.store.state import project_root_for

    project = (root or project_root_for(Path.cwd())).resolve()
    emit((rotate_token(project) if rotate else ensure_token(project)) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``share`` to the app."""
    app.add_typer(share_app, name="share")
