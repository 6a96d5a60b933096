"""``prompt`` and ``status``: what the agents in tmux are doing (§7.14)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer


def prompt(
    file: Annotated[Path | None, typer.Argument(help="The session document.")] = None,
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
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux.agent_state import agent_states

    states = agent_states(project_root_for(root or Path.cwd()))
    if as_json:
        emit_json([asdict(s) for s in states])
        return
    for s in states:
        extra = " (permission prompt)" if s.waiting_permission else ""
        code = f" code {s.exit_code}" if s.exit_code is not None else ""
        emit(f"{s.file}\t{s.pane}\t{s.state}{code}{extra}\n")


def register(app: typer.Typer) -> None:
    """Add ``prompt`` and ``status`` to the app."""
    app.command("prompt")(prompt)
    app.command("status")(status)
