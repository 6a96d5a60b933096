"""``agent-doc log`` and ``show``: a document's committed versions, by name."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def log(
    file: Annotated[Path, document_argument()],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """List FILE's committed versions, newest first, with their tags.

    Each line gives the version's number (for show --at and diff --from),
    its commit, time and message, and the tags on it, such as the
    agent-doc/<doc>/pre-compact-N tags compact leaves.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.named_history import document_log

    entries = document_log(file)
    if as_json:
        emit_json([entry._asdict() for entry in entries])
        return
    if not entries:
        info(f"{file} has no committed version yet")
    for entry in entries:
        tags = f"  [{', '.join(entry.tags)}]" if entry.tags else ""
        emit(
            f"{entry.number:>4}  {entry.sha[:10]}  {entry.when}  "
            f"{entry.message}{tags}\n"
        )


def show(
    file: Annotated[Path, document_argument()],
    back: Annotated[
        int | None,
        typer.Option(
            min=0, metavar="N", help="The version N commits back (0: the last one)."
        ),
    ] = None,
    at: Annotated[
        int | None,
        typer.Option(min=1, metavar="N", help="Version N, as numbered by log."),
    ] = None,
    tag: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="The version a tag names (pre-compact-1 is enough for "
            "agent-doc/<doc>/pre-compact-1).",
        ),
    ] = None,
) -> None:
    """Print FILE as it was committed: give one of --back, --at or --tag."""
    from agent_doc.cli._output import emit
    from agent_doc.cycle.named_history import text_at
    from agent_doc.cycle.named_history import version_sha

    emit(text_at(file, version_sha(file, back=back, at=at, tag=tag)))


def register(app: typer.Typer) -> None:
    """Add ``log`` and ``show`` to the app."""
    app.command("log")(log)
    app.command("show")(show)
