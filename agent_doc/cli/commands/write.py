"""``agent-doc write``: apply an agent response from stdin to a document (§7.22)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import RoomOption
from agent_doc.cli._params import TokenFileOption
from agent_doc.cli._params import document_argument

BaselineFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--baseline-file", help="Document text the response was generated from."
    ),
]
StreamOpt = Annotated[
    bool, typer.Option("--stream", help="CRDT write strategy (the default).")
]
ForceDiskOpt = Annotated[
    bool,
    typer.Option("--force-disk", help="Write the file even if an editor has it open."),
]
OriginOpt = Annotated[
    str | None,
    typer.Option("--origin", help="Who writes (skill, run, watch…); logged."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")]
BacklogAddOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--backlog-add",
        metavar="TEXT",
        help="Then add a backlog item (repeatable).",
    ),
]
BacklogEditOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--backlog-edit", metavar="ID=TEXT", help="Then change an item's text."
    ),
]
BacklogGateOpt = Annotated[
    list[str] | None,
    typer.Option("--backlog-gate", metavar="ID", help="Then gate an item."),
]
BacklogUngateOpt = Annotated[
    list[str] | None,
    typer.Option("--backlog-ungate", metavar="ID", help="Then ungate an item."),
]
BacklogDoneOpt = Annotated[
    list[str] | None,
    typer.Option("--backlog-done", metavar="ID", help="Then mark an item done."),
]
BacklogReorderOpt = Annotated[
    str | None,
    typer.Option(
        "--backlog-reorder", metavar="ID,ID…", help="Then put these items first."
    ),
]


def write(
    file: Annotated[Path, document_argument()],
    baseline_file: BaselineFileOpt = None,
    stream: StreamOpt = False,
    force_disk: ForceDiskOpt = False,
    origin: OriginOpt = None,
    as_json: JsonOpt = False,
    room: RoomOption = None,
    token_file: TokenFileOption = None,
    backlog_add: BacklogAddOpt = None,
    backlog_edit: BacklogEditOpt = None,
    backlog_gate: BacklogGateOpt = None,
    backlog_ungate: BacklogUngateOpt = None,
    backlog_done: BacklogDoneOpt = None,
    backlog_reorder: BacklogReorderOpt = None,
) -> None:
    """Apply the agent response on stdin (patch blocks or text) to FILE.

    A language server that has FILE open receives the write and merges it into
    the live buffer; otherwise the file is written, merged with any edits made
    since the baseline. Exit 75 when an editor has FILE open but could not apply
    the edit in time (nothing written; the response stays pending).
    The --backlog-* options change FILE's backlog once the answer is written,
    in this order: add, edit, gate, ungate, done, reorder.
    """
    from agent_doc.cli.commands._fast import do_write
    from agent_doc.cli.commands._write_backlog import backlog_ops_of
    from agent_doc.cli.commands._write_backlog import run_backlog_ops

    ops = backlog_ops_of(
        backlog_add, backlog_edit, backlog_gate, backlog_ungate, backlog_done,
        backlog_reorder,
    )  # fmt: skip
    code = do_write(
        file,
        baseline_file=baseline_file,
        stream=stream,
        force_disk=force_disk,
        origin=origin,
        as_json=as_json,
        room=room,
        token_file=token_file,
    )
    if code == 0 and ops:
        run_backlog_ops(file, ops)


def register(app: typer.Typer) -> None:
    """Add ``write`` to the app."""
    app.command("write")(write)
