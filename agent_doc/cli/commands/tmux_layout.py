"""``sync``, ``layout``, ``resync``: arrange and check agent panes (§7.12–13, §7.20)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated
from typing import Literal

import typer

from agent_doc.cli._params import document_argument

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.tmux.sync import SyncResult

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WindowOpt = Annotated[str | None, typer.Option("--window", help="tmux window.")]


def sync(
    col: Annotated[
        list[str], typer.Option("--col", help="Comma-separated files of one column.")
    ],
    window: WindowOpt = None,
    focus: Annotated[str | None, typer.Option("--focus", help="File to focus.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Mirror the editor's columns (one --col each, left to right) in tmux.

    Prints the window and each column's documents with their panes; exits 1
    when nothing could be arranged.
    """
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.tmux.sync import sync as core_sync

    columns = [[f.strip() for f in c.split(",") if f.strip()] for c in col]
    result = core_sync(columns, focus=focus, window=window)
    if as_json:
        emit_json(asdict(result))
    else:
        for warning in result.warnings:
            info(f"warning: {warning}")
        if result.window is not None:
            emit(sync_summary(result))
    if result.window is None and result.warnings:
        raise typer.Exit(1)


def sync_summary(result: SyncResult) -> str:
    """``window @3: left.md (%4) | right.md (%6)`` and a line per problem."""
    names = {pane: Path(file).name for file, pane in result.files.items()}
    cols = " | ".join(
        ", ".join(f"{names.get(p, 'other')} ({p})" for p in col)
        for col in result.columns
    )
    state = "" if result.ok else " (not every pane could be placed)"
    return f"window {result.window}: {cols}{state}\n"


def layout(
    files: Annotated[list[Path], document_argument("Documents, focus first.")],
    split: Annotated[
        Literal["h", "v"], typer.Option("--split", help="h (side by side) or v.")
    ] = "h",
    window: WindowOpt = None,
) -> None:
    """Arrange the panes of FILES in one tmux window."""
    from agent_doc.cli._output import info
    from agent_doc.tmux.layout import layout as core_layout

    result = core_layout([str(f) for f in files], split=split, window=window)
    for warning in result.warnings:
        info(f"warning: {warning}")


def resync(
    fix: Annotated[bool, typer.Option("--fix", help="Repair what is found.")] = False,
    root: Annotated[Path | None, typer.Option("--root", help="Project root.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check sessions.json against live tmux panes; --fix repairs.

    Without --fix nothing is removed: bindings whose pane is gone are listed
    as "would prune". Bindings on a tmux server that does not answer are
    left alone (one warning).
    """
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.resync import resync as core_resync

    report = core_resync(project_root_for(root or Path.cwd()), fix)
    if as_json:
        emit_json(asdict(report))
        return
    for warning in report.warnings:
        info(f"agent-doc: {warning}")
    verb = "pruned" if fix else "would prune"
    for stale in report.pruned:
        info(f"{verb}: {stale.file or stale.session_id} (pane {stale.pane}: "
             f"{stale.reason})")  # fmt: skip
    for issue in report.issues:
        state = "fixed" if issue.fixed else "found"
        info(f"{issue.kind}: {issue.file} (pane {issue.pane}) {issue.detail} [{state}]")
    if (report.issues or report.pruned) and not fix:
        info("run with --fix to resolve")
    info(f"{verb} {len(report.pruned)}, purged {len(report.purged_windows)} stash")


def register(app: typer.Typer) -> None:
    """Add ``sync``, ``layout`` and ``resync`` to the app."""
    app.command("sync")(sync)
    app.command("layout")(layout)
    app.command("resync")(resync)
