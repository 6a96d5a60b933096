"""``agent-doc recover``: re-apply agent responses whose write was interrupted."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def recover(
    file: Annotated[
        Path | None,
        document_argument(
            "Only this document (default: the whole project).", frontmatter=False
        ),
    ] = None,
    force_disk: Annotated[
        bool,
        typer.Option(
            "--force-disk",
            help="Write the files even if an editor has them open (one that "
            "does not answer).",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Write orphaned pending responses (.agent-doc/pending/) into their documents.

    Each goes through the normal write path (live buffer or disk, merged with
    the user's edits; --force-disk: the file, even when an editor has it open).
    A response that fails again stays pending; the exit code is then 1.
    Temporary files a killed writer left next to the document or under
    .agent-doc/ (.NAME.PID.RANDOM.tmp of a pid no longer running) are removed
    too.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.recovery import recover_pending
    from agent_doc.store.debris import remove_debris
    from agent_doc.write.server_link import ServerLink

    results = recover_pending(file, None if force_disk else ServerLink())
    removed = remove_debris(file)
    if as_json:
        emit_json(
            {
                "recovered": any(r.status in ("written", "completed") for r in results),
                "items": [
                    {
                        "pending": str(r.pending),
                        "file": str(r.path) if r.path else None,
                        "status": r.status,
                        "error": r.error,
                    }
                    for r in results
                ],
                "removed_temp_files": [str(p) for p in removed],
            }
        )
    elif not results and not removed:
        info("nothing to recover")
    for path in removed if not as_json else []:
        info(f"removed a dead writer's temporary file: {path}")
    for r in results if not as_json else []:
        where = r.path or r.pending
        info(f"{r.status}: {where}" + (f": {r.error}" if r.error else ""))
    failed = sum(r.status == "failed" for r in results)
    if failed:
        from agent_doc.errors import PatchError

        raise PatchError(f"{failed} pending response(s) not written; kept for later")


def register(app: typer.Typer) -> None:
    """Add ``recover`` to the app."""
    app.command("recover")(recover)
