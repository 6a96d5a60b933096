"""``agent-doc outline``: a document's sections with sizes (spec §7.17)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def outline(
    file: Annotated[Path, typer.Argument(help="The markdown document.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array of sections.")
    ] = False,
) -> None:
    """Show FILE's heading structure with line and approximate token counts.

    Frontmatter is skipped; text before the first heading is "(preamble)";
    headings inside code blocks and comments are ignored.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.document.outline import outline as build_outline
    from agent_doc.document.outline import render_outline_text
    from agent_doc.store.state import read_document

    sections = build_outline(read_document(file).text)
    if as_json:
        emit_json([s.as_dict() for s in sections])
    else:
        emit(render_outline_text(sections))


def register(app: typer.Typer) -> None:
    """Add ``outline`` to the app."""
    app.command("outline")(outline)
