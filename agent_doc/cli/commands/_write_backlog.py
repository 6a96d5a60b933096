"""``write``'s ``--backlog-*`` options: backlog operations after the answer."""

from __future__ import annotations

from pathlib import Path

from agent_doc.document.backlog_ops import BacklogOp
from agent_doc.errors import AgentDocError
from agent_doc.errors import PatchError


def _id(value: str) -> str:
    return value.strip().removeprefix("[").removesuffix("]").removeprefix("#")


def backlog_ops_of(
    add: list[str] | None,
    edit: list[str] | None,
    gate: list[str] | None,
    ungate: list[str] | None,
    done: list[str] | None,
    reorder: str | None,
) -> list[BacklogOp]:
    """The operations the options ask for, in the order they run."""
    ops = [BacklogOp("add", text=text) for text in add or []]
    for pair in edit or []:
        item_id, sep, text = pair.partition("=")
        if not sep:
            raise PatchError(f"--backlog-edit takes ID=TEXT, not {pair!r}")
        ops.append(BacklogOp("edit", id=_id(item_id), text=text))
    for kind, ids in (("gate", gate), ("ungate", ungate), ("done", done)):
        ops.extend(BacklogOp(kind, id=_id(item_id)) for item_id in ids or [])
    if reorder:
        order = tuple(_id(i) for i in reorder.split(",") if i.strip())
        ops.append(BacklogOp("reorder", ids=order))
    return ops


def run_backlog_ops(file: Path, ops: list[BacklogOp]) -> None:
    """Apply ``ops`` to FILE's backlog through the write seam, one stderr line
    each; a refused one says the answer itself was written."""
    import sys

    from agent_doc.write.backlog import change_items
    from agent_doc.write.server_link import ServerLink

    link = ServerLink()
    for op in ops:
        try:
            result = change_items(file, op, link=link)
        except AgentDocError as exc:
            raise PatchError(
                f"the answer was written; backlog {op.kind}: {exc}"
            ) from None
        item = f" [#{result.id}]" if result.id else ""
        state = "changed" if result.changed else "already so"
        sys.stderr.write(f"agent-doc: backlog {op.kind}{item}: {state}\n")
