"""``agent-doc mode``: show or set a document's format and write strategy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from typing import Literal

import typer

from agent_doc.cli._params import document_argument


def mode(
    file: Annotated[Path, document_argument()],
    format: Annotated[
        Literal["template", "inline", "append"] | None,
        typer.Option(
            "--format",
            help="Set agent_doc_format: template or inline (append: old inline).",
        ),
    ] = None,
    write: Annotated[
        Literal["crdt", "merge"] | None,
        typer.Option("--write", help="Set agent_doc_write: crdt or merge."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Show FILE's format and write mode, or set them with --format/--write.

    Only the agent_doc_format / agent_doc_write frontmatter lines change.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cycle.project import document_mode

    result = document_mode(file, format=format, write=write)
    if as_json:
        emit_json(
            {
                "file": str(result.path),
                "format": result.format,
                "write": result.write,
                "changed": result.changed,
            }
        )
    else:
        emit(f"format: {result.format}\nwrite: {result.write}\n")


def register(app: typer.Typer) -> None:
    """Add ``mode`` to the app."""
    app.command("mode")(mode)
