"""``agent-doc gc``: remove orphaned and expired .agent-doc state (§11)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def gc(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would go; delete nothing.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the removed files as JSON.")
    ] = False,
) -> None:
    """Remove state of deleted documents, stale typing/status files, dead servers.

    Also expired hook events, links_cache entries older than 30 days, lock
    files of deleted documents that no process holds, and temporary files of
    writers that are no longer running. A pending response whose document
    exists, the lock of an existing document and a held lock are never removed.
    """
    from agent_doc.automation.gc import collect_garbage
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.store.state import project_root_for

    root = project_root_for(Path.cwd())
    items = collect_garbage(root, dry_run=dry_run)
    if as_json:
        emit_json(
            {
                "root": str(root),
                "dry_run": dry_run,
                "removed": [i.to_json() for i in items],
            }
        )
        return
    for item in items:
        emit(f"{item.path.relative_to(root)}: {item.reason}\n")
    verb = "would remove" if dry_run else "removed"
    info(f"gc: {verb} {len(items)} file(s)")


def register(app: typer.Typer) -> None:
    """Add ``gc`` to the app."""
    app.command("gc")(gc)
