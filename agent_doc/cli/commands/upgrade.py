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
    from_index: Annotated[
        bool,
        typer.Option(
            "--from-index",
            help="Install from the package index even when agent-doc runs from "
            "a git checkout (replaces that install).",
        ),
    ] = False,
) -> None:
    """Check PyPI for agent-doc-lsp and upgrade with the running interpreter's pip.

        The download is installed only if it provides the agent_doc_lsp package
        (the PyPI name agent-doc is a different program). Run from a git checkout
        (an editable install), it says to update with git pull and changes nothing
    (--from-index installs from the package index all the same).
    """
    import shlex

    from agent_doc.automation.upgrade import plan_upgrade
    from agent_doc.automation.upgrade import run_upgrade
    from agent_doc.automation.upgrade import running_checkout
    from agent_doc.cli._output import emit
    from agent_doc.cli._output import emit_json
    from agent_doc.cli._output import info

    checkout = None if from_index else running_checkout()
    if checkout is not None:
        pull = shlex.join(["git", "-C", str(checkout), "pull"])
        if as_json:
            emit_json(
                {
                    "checkout": str(checkout),
                    "command": ["git", "-C", str(checkout), "pull"],
                }
            )
        info(
            f"agent-doc runs from the git checkout {checkout}: pip does not "
            f"upgrade it; update it with {pull} (and reinstall with "
            f"pip install -e {shlex.quote(str(checkout))} if its dependencies changed)"
        )
        return
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
