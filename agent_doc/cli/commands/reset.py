"""``agent-doc reset``: forget the agent session and snapshot of a document (§7.5)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def reset(
    file: Annotated[Path, document_argument()],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Clear FILE's resume id and delete its snapshot and CRDT state.

    The next diff then shows the whole document and the next run starts a new
    agent conversation.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.project import reset_document
    from agent_doc.write.server_link import ServerLink

    result = reset_document(file, ServerLink())
    if as_json:
        emit_json(
            {
                "file": str(result.path),
                "cleared_resume": result.cleared_resume,
                "deleted": list(result.deleted),
            }
        )
        return
    done = list(result.deleted) + (["resume id"] if result.cleared_resume else [])
    info(f"reset {file}: {', '.join(done) if done else 'nothing to clear'}")


def register(app: typer.Typer) -> None:
    """Add ``reset`` to the app."""
    app.command("reset")(reset)
