"""``agent-doc audit-docs``: check CLAUDE.md/AGENTS.md/README.md/SKILL.md (§7.7)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def audit_docs(
    root: Annotated[
        Path | None,
        typer.Option("--root", help="Project root (default: detected from CWD)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the issues as JSON.")
    ] = False,
) -> None:
    """Check instruction files for wrong paths, size, staleness and content.

    One line per issue (path:line: kind: message); exit 1 when there are any.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.audit import audit_docs as run_audit
    from agent_doc.cycle.audit import resolve_root

    base = resolve_root(root)
    issues = run_audit(base)
    if as_json:
        emit_json({"root": str(base), "issues": [i.to_json() for i in issues]})
    else:
        emit("".join(f"{issue}\n" for issue in issues))
        if not issues:
            info(f"audit-docs: no issues under {base}")
    if issues:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``audit-docs`` to the app."""
    app.command("audit-docs")(audit_docs)
