"""``prompt`` and ``status``: what the agents in tmux are doing (§7.14)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument


def prompt(
    file: Annotated[Path | None, document_argument()] = None,
    answer: Annotated[
        int | None, typer.Option("--answer", help="Choose option N.")
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every live session.")] = False,
    root: Annotated[Path | None, typer.Option("--root", help="Project root.")] = None,
) -> None:
    """Print the permission prompt of FILE's agent as JSON; --answer N picks one."""
    from agent_doc.cli._output import emit_json
    from agent_doc.errors import TmuxError
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.prompts import answer_prompt
    from agent_doc.tmux.prompts import prompt_all
    from agent_doc.tmux.prompts import prompt_state

    if all_:
        emit_json(prompt_all(project_root_for(root or file or Path.cwd())))
        return
    if file is None:
        raise TmuxError("prompt needs a FILE (or --all)")
    if answer is not None:
        emit_json(answer_prompt(file, answer).to_json())
        return
    emit_json(prompt_state(file).to_json())


def status(
    root: Annotated[Path | None, typer.Option("--root", help="Project root.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the project's documents with their pane and agent state."""
    from agent_doc.cli.commands._fast_turn import do_status

    do_status(root, as_json=as_json)


def register(app: typer.Typer) -> None:
    """Add ``prompt`` and ``status`` to the app."""
    app.command("prompt")(prompt)
    app.command("status")(status)
