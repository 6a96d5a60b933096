"""``agent-doc patch``: replace (or append to) one component of a document (§7.21)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import RoomOption
from agent_doc.cli._params import TokenFileOption
from agent_doc.cli._params import document_argument


def patch(
    file: Annotated[Path, document_argument()],
    component: Annotated[str, typer.Argument(help="Component name, e.g. status.")],
    content: Annotated[
        str | None, typer.Argument(help="New content (default: read stdin).")
    ] = None,
    force_disk: Annotated[
        bool,
        typer.Option(
            "--force-disk", help="Write the file even if an editor has it open."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the outcome as JSON.")
    ] = False,
    room: RoomOption = None,
    token_file: TokenFileOption = None,
) -> None:
    """Patch COMPONENT of FILE with CONTENT (or stdin).

    Mode (replace / append / prepend), timestamp, max_entries, max_lines and the
    pre_patch / post_patch hooks come from the inline attributes and
    .agent-doc/components.toml. A language server that has FILE open applies
    the patch to the live buffer.
    """
    from agent_doc.cli.commands._fast import do_patch

    do_patch(
        file,
        component,
        content,
        force_disk=force_disk,
        as_json=as_json,
        room=room,
        token_file=token_file,
    )


def register(app: typer.Typer) -> None:
    """Add ``patch`` to the app."""
    app.command("patch")(patch)
