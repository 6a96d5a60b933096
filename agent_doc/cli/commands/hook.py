"""``agent-doc hook fire|poll|listen|gc``: cross-session hook events (§9.5)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from typing import Literal

import typer

from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

hook_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="Cross-session hook events (fire, poll, listen, gc).",
)

RootOpt = Annotated[
    Path | None, typer.Option("--root", help="Project root (default: from CWD).")
]


def _root(root: Path | None, near: Path | None = None) -> Path:
    from agent_doc.store.state import project_root_for

    return Path(root) if root is not None else project_root_for(near or Path.cwd())


@hook_app.command("fire")
def fire(
    event: Annotated[str, typer.Argument(help="Event name, e.g. post_write.")],
    file: Annotated[Path, typer.Argument(help="The document the event is about.")],
    transport: Annotated[
        Literal["file", "socket", "chain"],
        typer.Option("--transport", help="file | socket | chain."),
    ] = "file",
    root: RootOpt = None,
) -> None:
    """Fire EVENT for FILE (the session id is read from its frontmatter)."""
    from agent_doc.cli._output import emit_json
    from agent_doc.store.events import fire_event

    item = fire_event(event, file, transport=transport, root=_root(root, file))
    emit_json(item.to_json())


@hook_app.command("poll")
def poll(
    event: Annotated[str, typer.Argument(help="Event name.")],
    since: Annotated[
        float, typer.Option("--since", min=0, help="Only events at most SECS old.")
    ] = 3600.0,
    root: RootOpt = None,
) -> None:
    """Print the events of EVENT newer than --since seconds (JSON list)."""
    from agent_doc.cli._output import emit_json
    from agent_doc.store.events import poll_events

    emit_json([e.to_json() for e in poll_events(_root(root), event, since_s=since)])


@hook_app.command("listen")
def listen(root: RootOpt = None) -> None:
    """Accept NDJSON events on .agent-doc/hooks.sock until SIGTERM/SIGINT."""
    import signal

    from agent_doc.cli._output import info
    from agent_doc.store.events import event_listener

    listener = event_listener(_root(root))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda _s, _f: listener.stop())
    info(f"listening on {listener.path}")
    listener.serve()


@hook_app.command("gc")
def gc(
    root: RootOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List, do not delete.")
    ] = False,
) -> None:
    """Remove expired events (older than one hour) of every hook."""
    from agent_doc.cli._output import info
    from agent_doc.store.events import gc_events

    removed = gc_events(_root(root), dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    info(f"{verb} {len(removed)} expired hook event(s)")


def register(app: typer.Typer) -> None:
    """Add the ``hook`` group to the app."""
    app.add_typer(hook_app, name="hook")
