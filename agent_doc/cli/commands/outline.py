"""``agent-doc outline``: a document's sections with sizes (spec §7.17)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def outline(
    file: Annotated[Path, document_argument("The markdown document.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array of sections.")
    ] = False,
) -> None:
    """Show FILE's heading structure with line and approximate token counts.

    Frontmatter is skipped; text before the first heading is "(preamble)";
    headings inside code blocks and comments are ignored.
    """
    from agent_doc.cli.commands._fast_turn import do_outline

    do_outline(file, as_json=as_json)


def register(app: typer.Typer) -> None:
    """Add ``outline`` to the app."""
    app.command("outline")(outline)
