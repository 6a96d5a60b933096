"""``agent-doc diff``: what the user changed since the agent's last write (§7.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def diff(
    file: Annotated[Path, document_argument()],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Print the unified diff from the snapshot to FILE.

    The live editor buffer is used when a language server has FILE open.
    Prints "no changes" on stderr (exit 0) when there is nothing new.
    """
    from agent_doc.cli.commands._fast import do_diff

    do_diff(file, as_json=as_json)


def register(app: typer.Typer) -> None:
    """Add ``diff`` to the app."""
    app.command("diff")(diff)
