"""``agent-doc serve``: the project's session documents as Yjs rooms (issue 29)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port)."),
    ] = 8765,
    root: Annotated[
        Path | None,
        typer.Option("--root", help="Project root (default: the project of the cwd)."),
    ] = None,
    rotate_token: Annotated[
        bool, typer.Option("--rotate-token", help="Make a new token before serving.")
    ] = False,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="Accept clients without a token (loopback addresses only).",
        ),
    ] = False,
) -> None:
    """Serve every session document of the project as a Yjs room.

    Room name = the document's agent_doc_session. Each room's state lives in
    .agent-doc/share/rooms/<session id>.db (the source of truth); each file is
    rewritten as a projection of its room, and edits made to a file from
    outside are merged into its room. Clients send the project token
    (.agent-doc/share/token) as "Authorization: Bearer <token>". Put TLS in
    front with a reverse proxy.
    Stops on Ctrl-C / SIGTERM after writing every room to its file.
    """
    import logging

    from agent_doc.cli._click import UsageError
    from agent_doc.cli._output import info
    from agent_doc.share.access import ensure_token
    from agent_doc.share.access import is_loopback
    from agent_doc.share.access import rotate_token as rotate
    from agent_doc.share.access import token_path
    from agent_doc.share.server import ServeOptions
    from agent_doc.share.server import run_server
    from agent_doc.store.state import project_root_for

    if no_token and not is_loopback(host):
        raise UsageError(f"--no-token is refused with a non-loopback --host ({host})")
    if no_token and rotate_token:
        raise UsageError("--no-token and --rotate-token exclude each other")
    project = (root or project_root_for(Path.cwd())).resolve()
    if not project.is_dir():
        raise UsageError(f"--root {project} is not a folder")
    token = (
        None
        if no_token
        else (rotate(project) if rotate_token else ensure_token(project))
    )
    # serve's log is its stderr (replacing the CLI's quiet handler, cli/_logs.py)
    logging.basicConfig(
        level=logging.INFO, format="agent-doc serve: %(message)s", force=True
    )
    logging.getLogger("uvicorn.error").addFilter(_quiet_refusals)
    options = ServeOptions(project, host, port, token, token_path(project))

    def ready(url: str) -> None:
        auth = (
            "no token (loopback only)"
            if token is None
            else "token in .agent-doc/share/token"
        )
        info(f"agent-doc serve: listening on {url}/<session id> ({auth})")

    run_server(options, ready)


def _quiet_refusals(record: object) -> bool:
    """Drop uvicorn's line for a refused handshake (ours says why it was refused)."""
    return "without completing handshake" not in str(getattr(record, "msg", ""))


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the app."""
    app.command("serve")(serve)
