"""``agent-doc backlog add|done|gate|ungate|edit|reorder|clear FILE …``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument
from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

backlog_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="Change FILE's backlog item by item: each item keeps its [#id].",
)

FileArg = Annotated[Path, document_argument()]
IdArg = Annotated[
    str, typer.Argument(metavar="ID", help="The item's id (a3f2 or #a3f2).")
]
IceboxOpt = Annotated[
    bool,
    typer.Option("--icebox", help="Change the agent:icebox list instead."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def run_op(
    file: Path, kind: str, *, icebox: bool, as_json: bool, **args: object
) -> None:
    """Apply one operation through the write seam and report it."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.document.backlog_ops import BacklogOp
    from agent_doc.write.backlog import change_items
    from agent_doc.write.server_link import ServerLink

    component = "icebox" if icebox else "backlog"
    op = BacklogOp(kind, **args)  # type: ignore[arg-type]
    result = change_items(file, op, component=component, link=ServerLink())
    if as_json:
        emit_json(
            {
                "file": str(file),
                "op": kind,
                "id": result.id,
                "changed": result.changed,
                "target": result.target,
            }
        )
        return
    item = f" [#{result.id}]" if result.id else ""
    where = " in the editor" if result.target == "server" else ""
    what = "changed" if result.changed else "already so, nothing changed"
    info(f"{component} {kind}{item}: {what}{where}")


def _id(value: str) -> str:
    return value.strip().removeprefix("[").removesuffix("]").removeprefix("#")


@backlog_app.command("add")
def add(
    file: FileArg,
    text: Annotated[
        str, typer.Argument(help="The item's text; 'id=NAME text' names its id.")
    ],
    item_id: Annotated[
        str | None, typer.Option("--id", metavar="NAME", help="A custom id.")
    ] = None,
    icebox: IceboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Add an open item at the top of FILE's backlog (its id is printed).

    Adding an item that is already there (same id, or same text) changes
    nothing and names its id.
    """
    run_op(
        file,
        "add",
        icebox=icebox,
        as_json=as_json,
        text=text,
        id=_id(item_id) if item_id else None,
    )


def _transition(kind: str, summary: str) -> None:
    def command(
        file: FileArg,
        item_id: IdArg,
        icebox: IceboxOpt = False,
        as_json: JsonOpt = False,
    ) -> None:
        run_op(file, kind, icebox=icebox, as_json=as_json, id=_id(item_id))

    command.__doc__ = summary
    backlog_app.command(kind)(command)


_transition("done", "Mark item ID done ([x]; preflight removes it next turn).")
_transition("gate", "Mark item ID gated ([/]: done in code, waiting on something).")
_transition("ungate", "Move gated item ID back to open ([ ]).")


@backlog_app.command("edit")
def edit(
    file: FileArg,
    item_id: IdArg,
    text: Annotated[str, typer.Argument(help="The item's new text.")],
    icebox: IceboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Change item ID's text; its id and state stay."""
    run_op(file, "edit", icebox=icebox, as_json=as_json, id=_id(item_id), text=text)


@backlog_app.command("reorder")
def reorder(
    file: FileArg,
    ids: Annotated[
        list[str],
        typer.Argument(metavar="ID...", help="The ids to put first, in order."),
    ],
    icebox: IceboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Put the items named first, in the order given; the others follow as they were."""
    run_op(
        file,
        "reorder",
        icebox=icebox,
        as_json=as_json,
        ids=tuple(_id(i) for part in ids for i in part.split(",") if i.strip()),
    )


@backlog_app.command("clear")
def clear(
    file: FileArg,
    all_items: Annotated[
        bool, typer.Option("--all", help="Remove every item, not only the done ones.")
    ] = False,
    icebox: IceboxOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Remove the done items now (with --all: every item)."""
    run_op(file, "clear", icebox=icebox, as_json=as_json, all=all_items)


def register(app: typer.Typer) -> None:
    """Add ``backlog`` to the app."""
    app.add_typer(backlog_app, name="backlog")
