"""``agent-doc skill install|check|baseline``: the bundled Claude skill (§7.16)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agent_doc.cli._params import document_argument
from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

skill_app = typer.Typer(
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    help="The bundled Claude Code skill.",
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _root() -> Path:
    from agent_doc.store.state import project_root_for

    return project_root_for(Path.cwd())


@skill_app.command("install")
def install(as_json: JsonOpt = False) -> None:
    """Write the bundled SKILL.md to .claude/skills/agent-doc/ (idempotent)."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.skill import install_skill

    result = install_skill(_root())
    if as_json:
        emit_json(
            {
                "path": str(result.path),
                "changed": result.changed,
                "version": result.version,
            }
        )
    else:
        verb = "installed" if result.changed else "already up to date:"
        info(f"{verb} {result.path} (version {result.version})")


@skill_app.command("check")
def check(as_json: JsonOpt = False) -> None:
    """Exit 1 when the installed skill is missing or differs from the bundled one."""
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info
    from agent_doc.cycle.skill import check_skill

    result = check_skill(_root())
    if as_json:
        emit_json(
            {
                "path": str(result.path),
                "state": result.state,
                "installed_version": result.installed_version,
                "bundled_version": result.bundled_version,
            }
        )
    else:
        info(result.message)
    if result.state != "ok":
        raise typer.Exit(1)


@skill_app.command("baseline")
def baseline(
    file: Annotated[Path, document_argument()],
) -> None:
    """Print the path of the baseline preflight saved (for write --baseline-file)."""
    from agent_doc.cli._output import emit
    from agent_doc.cycle.skill import saved_baseline

    emit(f"{saved_baseline(file)}\n")


def register(app: typer.Typer) -> None:
    """Add the ``skill`` group to the app."""
    app.add_typer(skill_app, name="skill")
