"""``agent-doc upgrade``: upgrade the ``agent-doc-lsp`` install with pip (§7.18)."""

from __future__ import annotations

from typing import Annotated

import typer


def upgrade(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the pip command; run nothing.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the check as JSON.")
    ] = False,
) -> None:
    """Check PyPI for agent-doc-lsp and upgrade with the running interpreter's pip.

    The download is installed only if it provides the agent_doc_lsp package
    (the PyPI name agent-doc is a different program).
    """
    import shlex

    from agent_doc.automation.upgrade import plan_upgrade
    from agent_doc.automation.upgrade import run_upgrade
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info

    plan = plan_upgrade()
    command = shlex.join(plan.command)
    if as_json:
        emit_json(
            {
                "current": plan.current,
                "latest": plan.latest,
                "needed": plan.needed,
                "command": list(plan.command),
            }
        )
    if not plan.needed:
        info(f"agent-doc-lsp {plan.current} is up to date")
        return
    if plan.latest is None:
        info("could not reach the package index; letting pip decide")
    else:
        info(f"agent-doc-lsp {plan.latest} is available (you have {plan.current})")
    if dry_run:
        if not as_json:
            emit(command + "\n")
        return
    code = run_upgrade(plan)
    if code:
        raise SystemExit(code)


def register(app: typer.Typer) -> None:
    """Add ``upgrade`` to the app."""
    app.command("upgrade")(upgrade)
