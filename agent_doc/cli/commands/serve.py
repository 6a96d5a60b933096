"""``agent-doc serve``: the project's session documents as Yjs rooms (issue 29)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable


HostOpt = Annotated[
    str, typer.Option("--host", help="Address to bind (loopback by default).")
]
PortOpt = Annotated[
    int,
    typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port)."),
]
RootOpt = Annotated[
    Path | None,
    typer.Option("--root", help="Project root (default: the project of the cwd)."),
]
RotateTokenOpt = Annotated[
    bool, typer.Option("--rotate-token", help="Make a new token before serving.")
]
NoTokenOpt = Annotated[
    bool,
    typer.Option(
        "--no-token",
        help="Accept clients without a token (loopback addresses only).",
    ),
]


def serve(
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    root: RootOpt = None,
    rotate_token: RotateTokenOpt = False,
    no_token: NoTokenOpt = False,
) -> None:
    """Serve every session document of the project as a Yjs room.

    Room name = the document's agent_doc_session. Each room's state lives in
    .agent-doc/share/rooms/<session id>.db (the source of truth); each file is
    rewritten as a projection of its room, and edits made to a file from
    outside are merged into its room. Clients send the project token
    (.agent-doc/share/token) as "Authorization: Bearer <token>". Put TLS in
    front with a reverse proxy.
    Stops on Ctrl-C / SIGTERM after writing every room to its file.
    Refused outside a project (a folder without .agent-doc/: see init).
    """
    from agent_doc.cli._output import info
    from agent_doc.share.access import token_path
    from agent_doc.share.served import forget_serving
    from agent_doc.share.server import ServeOptions
    from agent_doc.share.server import run_server

    project = served_project(root, host, rotate_token=rotate_token, no_token=no_token)
    token = serve_token(project, rotate_token=rotate_token, no_token=no_token)
    serve_log()
    options = ServeOptions(project, host, port, token, token_path(project))
    try:
        run_server(options, announce_ready(project, host, token))
    finally:  # local turns of its documents stop asking the room
        forget_serving(project)
    info("agent-doc serve: stopped; every room is written to its file")


def served_project(
    root: Path | None, host: str, *, rotate_token: bool, no_token: bool
) -> Path:
    """The project ``serve`` serves, once the options agree with each other;
    refused outside a project (``serve`` creates nothing elsewhere)."""
    from agent_doc.cli._click import UsageError
    from agent_doc.errors import ShareError
    from agent_doc.share.access import is_loopback
    from agent_doc.store.state import find_project_root

    if no_token and not is_loopback(host):
        raise UsageError(f"--no-token is refused with a non-loopback --host ({host})")
    if no_token and rotate_token:
        raise UsageError("--no-token and --rotate-token exclude each other")
    project = (root or find_project_root(Path.cwd()) or Path.cwd()).resolve()
    if not project.is_dir():
        raise UsageError(f"--root {project} is not a folder")
    if not (project / ".agent-doc").is_dir():  # serve creates nothing elsewhere
        raise ShareError(
            f"{project} is not an agent-doc project (no .agent-doc/ there or "
            "above): run agent-doc init in your project first, or pass --root"
        )
    return project


def serve_token(project: Path, *, rotate_token: bool, no_token: bool) -> str | None:
    """The token clients must send (``None`` with --no-token)."""
    from agent_doc.share.access import ensure_token
    from agent_doc.share.access import rotate_token as rotate

    if no_token:
        return None
    return rotate(project) if rotate_token else ensure_token(project)


def announce_ready(
    project: Path, host: str, token: str | None
) -> Callable[[str, list[str]], None]:
    """What ``serve`` says once it listens: the URL peers join, how they
    authenticate, and a warning when clear text leaves this machine."""
    from agent_doc.cli._output import info
    from agent_doc.share.access import is_loopback
    from agent_doc.share.served import announce_serving

    def ready(url: str, peers: list[str]) -> None:
        announce_serving(project, url if peers == [url] else peers[0])
        auth = (
            "no token (loopback only)"
            if token is None
            else "token in .agent-doc/share/token"
        )
        if peers == [url]:
            info(f"agent-doc serve: listening on {url}/<session id> ({auth})")
        else:
            info(
                f"agent-doc serve: listening on {url} (every address; {auth}): "
                f"peers join {peers[0]}/<session id>, or use one of "
                + ", ".join(peers[1:] or ["this machine's addresses"])
            )
        if not is_loopback(host):
            info(
                "agent-doc serve: warning: ws:// is clear text, without TLS: the "
                "token and the documents can be read on the network; put a TLS "
                "proxy in front (wss://) or use an SSH tunnel (docs/security.md)"
            )

    return ready


def serve_log() -> None:
    """One ``agent-doc serve: …`` line per event, ours: agent-doc's loggers at
    INFO; uvicorn's and watchfiles' lines (started, connection open, 403,
    "1 change detected") only from WARNING up, or all with AGENT_DOC_DEBUG=1."""
    import logging
    import os

    debug = bool(os.environ.get("AGENT_DOC_DEBUG"))
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="agent-doc serve: %(message)s",
        force=True,  # replaces the CLI's quiet handler (cli/_logs.py)
    )
    logging.getLogger("agent_doc").setLevel(logging.DEBUG if debug else logging.INFO)
    if not debug:
        logging.getLogger("uvicorn.error").addFilter(_quiet_refusals)


def _quiet_refusals(record: object) -> bool:
    """Drop uvicorn's line for a refused handshake (ours says why it was refused)."""
    return "without completing handshake" not in str(getattr(record, "msg", ""))


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the app."""
    app.command("serve")(serve)
