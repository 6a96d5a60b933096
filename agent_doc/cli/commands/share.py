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
        typer.Option(
            "--rotate",
            help="Replace the token; new connections with the old one are refused.",
        ),
    ] = False,
    root: Annotated[
        Path | None,
        typer.Option("--root", help="Project root (default: the project of the cwd)."),
    ] = None,
) -> None:
    """Print the project's token (created when missing), or rotate it.

    The token is kept in .agent-doc/share/token (mode 0600) and opens the rooms
    of an agent-doc serve run in this project only; stderr names the project
    and says when the token was just made. A running serve reads it on every
    connect: after --rotate, new connections with the old token are refused,
    while peers already connected with it stay until they disconnect (restart
    serve to drop them).
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import info
    from agent_doc.errors import ShareError
    from agent_doc.share.access import project_token
    from agent_doc.share.access import rotate_token
    from agent_doc.store.state import find_project_root

    project = (root or find_project_root(Path.cwd()) or Path.cwd()).resolve()
    if not (project / ".agent-doc").is_dir():
        raise ShareError(
            f"{project} is not an agent-doc project (no .agent-doc/ there or "
            "above): run agent-doc init in your project first, or pass --root"
        )
    existing = None if rotate else project_token(project)
    emit((existing or rotate_token(project)) + "\n")
    if existing is not None:
        info(f"agent-doc: the token of the project {project}")
    elif rotate:
        info(
            f"agent-doc: rotated the token of the project {project}: new "
            "connections with the old one are refused; peers already connected "
            "with it stay until they disconnect (restart agent-doc serve to drop "
            "them)"
        )
    else:
        info(
            f"agent-doc: created a new token for the project {project}: it opens "
            "the rooms of an agent-doc serve run in this project only (to join "
            "another machine's server, use the token its owner gives you)"
        )


def register(app: typer.Typer) -> None:
    """Add ``share`` to the app."""
    app.add_typer(share_app, name="share")
