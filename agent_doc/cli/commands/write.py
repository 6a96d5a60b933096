"""``agent-doc write``: apply an agent response from stdin to a document (§7.22)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import RoomOption
from agent_doc.cli._params import TokenFileOption
from agent_doc.cli._params import document_argument


def write(
    file: Annotated[Path, document_argument()],
    baseline_file: Annotated[
        Path | None,
        typer.Option(
            "--baseline-file", help="Document text the response was generated from."
        ),
    ] = None,
    stream: Annotated[
        bool, typer.Option("--stream", help="CRDT write strategy (the default).")
    ] = False,
    force_disk: Annotated[
        bool,
        typer.Option(
            "--force-disk", help="Write the file even if an editor has it open."
        ),
    ] = False,
    origin: Annotated[
        str | None,
        typer.Option("--origin", help="Who writes (skill, run, watch…); logged."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the outcome as JSON.")
    ] = False,
    room: RoomOption = None,
    token_file: TokenFileOption = None,
) -> None:
    """Apply the agent response on stdin (patch blocks or text) to FILE.

    A language server that has FILE open receives the write and merges it into
    the live buffer; otherwise the file is written, merged with any edits made
    since the baseline. Exit 75 when an editor has FILE open but could not apply
    the edit in time (nothing written; the response stays pending).
    """
    from agent_doc.cli.commands._fast import do_write

    do_write(
        file,
        baseline_file=baseline_file,
        stream=stream,
        force_disk=force_disk,
        origin=origin,
        as_json=as_json,
        room=room,
        token_file=token_file,
    )


def register(app: typer.Typer) -> None:
    """Add ``write`` to the app."""
    app.command("write")(write)
