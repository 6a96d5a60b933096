"""``install``: prerequisite check and editor plugins from local sources (§7.3)."""

from __future__ import annotations

from typing import Annotated
from typing import Literal

import typer

EditorName = Literal["vscode", "neovim", "emacs", "helix", "zed", "jetbrains"]
"""The editors ``install`` and ``plugin`` take (``editor.install.EDITORS``)."""

EditorOpt = Annotated[
    EditorName | None,
    typer.Option(
        "--editor", help="vscode|neovim|emacs|helix|zed|jetbrains (default: detect)."
    ),
]


def render_result(result: object) -> None:
    """Print one :class:`~agent_doc.editor.install.InstallResult`."""
    from agent_doc.cli._output import emit
    from agent_doc.editor.install import InstallResult

    assert isinstance(result, InstallResult)
    where = f" → {result.path}" if result.path else ""
    detail = f" ({result.detail})" if result.detail else ""
    emit(f"{result.editor}: {result.status}{detail}{where}\n")
    for step in result.steps:
        emit(f"    {step}\n")


def install(
    editor: EditorOpt = None,
    skip_prereqs: Annotated[
        bool, typer.Option("--skip-prereqs", help="Do not check tmux/claude/git.")
    ] = False,
    skip_plugins: Annotated[
        bool, typer.Option("--skip-plugins", help="Do not install editor plugins.")
    ] = False,
) -> None:
    """Check prerequisites and install editor plugins (nothing is downloaded)."""
    from agent_doc.cli._output import emit
    from agent_doc.editor import install as ei

    if not skip_prereqs:
        for prereq in ei.check_prereqs():
            if prereq.ok:
                emit(f"ok       {prereq.name} ({prereq.path})\n")
            else:
                emit(f"MISSING  {prereq.name}: {prereq.hint}\n")
    if skip_plugins:
        return
    editors = [editor] if editor else ei.detect_editors()
    if not editors:
        emit("no editors detected; use --editor " + "|".join(ei.EDITORS) + "\n")
        return
    installed, failed = [], []
    for name in editors:
        try:
            result = ei.install(name)
        except ei.InstallError as exc:
            emit(f"{name}: FAILED ({exc})\n")
            failed.append(name)
            continue
        render_result(result)
        installed.append(name)
    emit(f"done: {len(installed)} ok, {len(failed)} failed\n")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``install`` to the app."""
    app.command("install")(install)
