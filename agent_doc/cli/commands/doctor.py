"""``agent-doc doctor``: check the set-up the README asks for, say what to fix."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def doctor(
    root: Annotated[
        Path | None,
        typer.Option(
            "--root",
            exists=True,
            file_okay=False,
            help="Project folder to check (default: here).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the checks as JSON.")
    ] = False,
) -> None:
    """Check Python, git and its identity, tmux, the agent programs, agent-doc-lsp
    and the socket folders; one line each: ok, warn or fail with the fix.

    Exit 0 when nothing fails (warnings included), 1 otherwise.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.editor.doctor import run_checks

    checks = run_checks(root)
    if as_json:
        emit_json([c.as_dict() for c in checks])
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            fix = f" — fix: {c.fix}" if c.fix else ""
            emit(f"{c.status:<4}  {c.name:<{width}}  {c.detail}{fix}\n")
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``doctor`` to the app."""
    app.command("doctor")(doctor)
