"""``start``, ``claim``, ``route``, ``focus``: documents ↔ tmux panes (§7.8–7.11)."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Annotated
from typing import Literal

import typer

from agent_doc.cli._params import document_argument

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
PaneOpt = Annotated[str | None, typer.Option("--pane", help="tmux pane id (%N).")]
FileArg = Annotated[Path, document_argument()]


def start(file: FileArg, pane: PaneOpt = None) -> None:
    """Bind FILE to the current tmux pane and exec the agent in it."""
    from agent_doc.tmux.agent_profile import split_assignments
    from agent_doc.tmux.route import start as core_start

    env, argv = split_assignments(core_start(file, pane=pane))
    os.execvpe(argv[0], argv, {**os.environ, **env})


def claim(
    file: FileArg,
    position: Annotated[
        Literal["left", "right", "top", "bottom"] | None,
        typer.Option("--position", help="left|right|top|bottom"),
    ] = None,
    window: Annotated[str | None, typer.Option("--window", help="tmux window.")] = None,
    pane: PaneOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Take a pane bound to another document.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Bind FILE to a tmux pane (last call wins; never another document's pane)."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.tmux.claim import claim as core_claim

    result = core_claim(file, position=position, window=window, pane=pane, force=force)
    if as_json:
        emit_json(asdict(result))
        return
    extra = " (new pane)" if result.provisioned else ""
    info(f"Claimed {result.file} for pane {result.pane}{extra}")


def route(
    file: FileArg,
    pane: PaneOpt = None,
    debounce: Annotated[
        int | None, typer.Option("--debounce", help="Skip if routed < MS ago.")
    ] = None,
    prompt_timeout: Annotated[
        float,
        typer.Option("--prompt-timeout", min=0, help="Seconds to wait for a prompt."),
    ] = 30.0,
    as_json: JsonOpt = False,
) -> None:
    """Send /agent-doc FILE to the document's pane, starting an agent if needed.

    A started agent that shows no prompt in time exits 75 (try again later).
    """
    from agent_doc.cli.commands._fast_turn import do_route

    do_route(
        file, pane=pane, debounce=debounce, as_json=as_json,
        prompt_timeout=prompt_timeout,
    )  # fmt: skip


def focus(file: Annotated[Path | None, document_argument()] = None,
          pane: PaneOpt = None) -> None:  # fmt: skip
    """Select the tmux window and pane of FILE."""
    from agent_doc.tmux.route import focus as core_focus

    core_focus(file, pane=pane)


def register(app: typer.Typer) -> None:
    """Add ``start``, ``claim``, ``route`` and ``focus`` to the app."""
    app.command("start")(start)
    app.command("claim")(claim)
    app.command("route")(route)
    app.command("focus")(focus)
