"""``agent-doc diff``: what the user changed since the agent's last write (§7.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def diff(
    file: Annotated[Path, document_argument()],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON.")
    ] = False,
    from_ref: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="REF",
            help="Diff FILE's history from this version instead: N (as log "
            "numbers it), ~N (N back), a tag or a commit.",
        ),
    ] = None,
    to_ref: Annotated[
        str | None,
        typer.Option(
            "--to", metavar="REF", help="With --from: to this version (default: now)."
        ),
    ] = None,
) -> None:
    """Print the unified diff from the snapshot to FILE.

    The live editor buffer is used when a language server has FILE open.
    Prints "no changes" on stderr (exit 0) when there is nothing new.
    With --from, diff two versions of FILE in git instead.
    """
    if from_ref is not None or to_ref is not None:
        _history_diff(file, from_ref, to_ref, as_json=as_json)
        return
    from agent_doc.cli.commands._fast import do_diff

    do_diff(file, as_json=as_json)


def _history_diff(
    file: Path, from_ref: str | None, to_ref: str | None, *, as_json: bool
) -> None:
    """``diff --from REF [--to REF]``: between two points of FILE's history."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.named_history import history_diff
    from agent_doc.cycle.preflight import current_text
    from agent_doc.errors import VcsError
    from agent_doc.write.server_link import ServerLink

    if from_ref is None:
        raise VcsError("--to needs --from")
    now = current_text(file, ServerLink()) if to_ref is None else ""
    found = history_diff(file, from_ref, to_ref, now)
    if as_json:
        emit_json({"file": str(file), "from": from_ref, "to": to_ref, "diff": found})
    elif found is None:
        info("no changes")
    else:
        emit(found)


def register(app: typer.Typer) -> None:
    """Add ``diff`` to the app."""
    app.command("diff")(diff)
