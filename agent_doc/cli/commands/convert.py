"""``agent-doc convert``: switch a document between template and inline format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from typing import Literal

import typer

from agent_doc.cli._params import document_argument


def convert(
    file: Annotated[Path, document_argument()],
    to: Annotated[
        Literal["template", "inline"],
        typer.Option("--to", help="Target format: template or inline."),
    ] = "template",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Convert to inline even though components are dropped."
        ),
    ] = False,
) -> None:
    """Convert FILE to template format (an exchange component) or back to inline.

    The snapshot is converted the same way, so the conversion itself is not
    reported as a user change while anything typed since the last turn (an
    unanswered last question) still is. Converting to inline drops other
    components (a status component) and the exchange's settings, which
    converting back does not restore: refused, saying what, unless --force.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.project import convert_document

    result = convert_document(file, to, force=force)
    if as_json:
        emit_json({"file": str(file), "to": to, "changed": result.changed})
    else:
        info(f"converted {file} to {to}" if result.changed else f"{file}: unchanged")


def register(app: typer.Typer) -> None:
    """Add ``convert`` to the app."""
    app.command("convert")(convert)
