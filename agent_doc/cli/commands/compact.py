"""``agent-doc compact``: move a session document's older turns to an archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def compact(
    file: Annotated[Path, document_argument()],
    keep: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Turns to keep in FILE (default: compact_keep_turns, 10).",
        ),
    ] = None,
    no_git: Annotated[
        bool, typer.Option("--no-git", help="Do not commit FILE and its archive.")
    ] = False,
    tag: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Name the tag left on FILE's last commit before compacting "
            "(default: agent-doc/<doc>/pre-compact-N).",
        ),
    ] = None,
    no_tag: Annotated[
        bool, typer.Option("--no-tag", help="Leave no tag before compacting.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
) -> None:
    """Move all but FILE's last turns into <stem>.archive.md, leaving a link.

    The snapshot follows, so the next diff is empty; an editor that has FILE
    open gets it as one edit that keeps unsaved typing. The archive is
    committed with FILE. FILE's last commit is tagged first (a local tag,
    pushed nowhere): agent-doc show FILE --tag pre-compact-N prints it.
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.compact import compact_document
    from agent_doc.write.server_link import ServerLink

    result = compact_document(
        file, keep=keep, link=ServerLink(), no_git=no_git, tag=tag, no_tag=no_tag
    )
    if as_json:
        emit_json(
            {
                "file": str(result.path),
                "archive": str(result.archive),
                "moved": result.moved,
                "archived_total": result.total,
                "kept": result.kept,
                "target": result.target,
                "committed": result.committed,
                "tag": result.tag,
            }
        )
    elif result.moved == 0:
        what = "turn" if result.kept == 1 else "turns"
        info(
            f"{file}: nothing to compact: {result.kept} {what}, none beyond those kept"
        )
    else:
        where = " in the editor" if result.target == "server" else ""
        done = ", committed" if result.committed else ""
        if result.tag:
            done += f"; the version before is tagged {result.tag}"
        info(
            f"moved {result.moved} {'turn' if result.moved == 1 else 'turns'} "
            f"of {file} to {result.archive.name}"
            f"{where}; kept the last {result.kept}{done}"
        )


def register(app: typer.Typer) -> None:
    """Add ``compact`` to the app."""
    app.command("compact")(compact)
