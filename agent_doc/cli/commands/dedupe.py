"""``agent-doc dedupe``: remove consecutive duplicate responses (spec §7.28)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def dedupe(
    file: Annotated[Path, document_argument()],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Remove consecutive duplicate "### Re:" blocks from FILE (idempotent).

    The boundary marker is kept and the snapshot is updated.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.project import dedupe_document

    result, removed = dedupe_document(file)
    if as_json:
        emit_json({"file": str(file), "removed": removed, "changed": result.changed})
    else:
        info(f"removed {removed} duplicate block(s) from {file}")


def register(app: typer.Typer) -> None:
    """Add ``dedupe`` to the app."""
    app.command("dedupe")(dedupe)
