"""``agent-doc init``: set up a project, or scaffold a new session document (§7.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import new_document_argument

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.cycle.project import InitResult


def init(
    file: Annotated[
        Path | None,
        new_document_argument("New session document to create (omit: project init)."),
    ] = None,
    title: Annotated[
        str | None, typer.Argument(help="Document title (default: file name).")
    ] = None,
    agent: Annotated[
        str | None, typer.Option("--agent", help="Agent backend for this document.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Create .agent-doc/ here, or scaffold FILE as a new session document.

    Without FILE: create .agent-doc/ (and snapshots/) at the project root and
    install the bundled skill; idempotent. With FILE: write frontmatter, a
    title, a status component and an exchange with a "## User" prompt; fails
    if FILE exists; sets up the project first if needed.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.project import init_project
    from agent_doc.cycle.project import scaffold_document

    if file is None:
        _report_project(init_project(), as_json)
        return
    doc = scaffold_document(file, title, agent)
    if as_json:
        emit_json(
            {
                "file": str(doc.path),
                "session": doc.session,
                "root": str(doc.project.root),
                "created": list(doc.project.created),
            }
        )
    else:
        info(f"created {doc.path} (session {doc.session})")
        info(next_steps(file))


def _report_project(result: InitResult, as_json: bool) -> None:
    """What project init did; a warning when git tracks runtime state."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info

    if as_json:
        emit_json({"root": str(result.root), "created": list(result.created),
                   "tracked_state": list(result.tracked_state)})  # fmt: skip
        return
    if result.created:
        info(f"initialised {result.root}: {', '.join(result.created)}")
    else:
        info(f"already initialised: {result.root}")
    if result.tracked_state:
        count = len(result.tracked_state)
        info(
            f"warning: git tracks {count} runtime file(s) under .agent-doc/; "
            f"untrack them (kept on disk) in {result.root} with: "
            "git rm -r --cached --quiet .agent-doc && git add .agent-doc"
        )


def next_steps(file: Path) -> str:
    """The one line a new user reads after ``init FILE``: what to do next."""
    import shlex

    name = shlex.quote(str(file))
    return (
        f"next: open {name} in your editor, write under '## User', then run "
        f"'agent-doc run {name}' (or 'agent-doc route {name}' for a tmux pane)"
    )


def register(app: typer.Typer) -> None:
    """Add ``init`` to the app."""
    app.command("init")(init)
