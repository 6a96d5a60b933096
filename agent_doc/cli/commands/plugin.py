"""``plugin install|update|list``: editor plugins from local sources (§7.19)."""

from __future__ import annotations

from typing import Annotated

import typer

from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup
from agent_doc.cli.commands.install import EditorName

plugin_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    name="plugin",
    no_args_is_help=True,
    help="Install or list editor plugins.",
)

EditorArg = Annotated[
    EditorName, typer.Argument(help="vscode|neovim|emacs|helix|zed|jetbrains")
]


def _install(editor: str) -> None:
    from agent_doc.cli._output import fail
    from agent_doc.cli.commands.install import render_result
    from agent_doc.editor import install as ei

    try:
        render_result(ei.install(editor))
    except ei.InstallError as exc:
        fail(str(exc))


@plugin_app.command("install")
def install(editor: EditorArg) -> None:
    """Install EDITOR's plugin from the local editors/ tree."""
    _install(editor)


@plugin_app.command("update")
def update(editor: EditorArg) -> None:
    """Reinstall EDITOR's plugin from the local editors/ tree."""
    _install(editor)


@plugin_app.command("list")
def list_plugins(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the editor plugins and whether each is installed."""
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.editor import install as ei

    rows = [
        {
            "editor": name,
            "installed": ei.is_installed(name),
            "automatic": name in ("vscode", "neovim"),
        }
        for name in ei.EDITORS
    ]
    if as_json:
        emit_json(rows)
        return
    labels = {True: "installed", False: "not installed", None: "unknown"}
    for row in rows:
        emit(f"{row['editor']:<10} {labels[row['installed']]}\n")  # type: ignore[index]


def register(app: typer.Typer) -> None:
    """Add the ``plugin`` group to the app."""
    app.add_typer(plugin_app)
