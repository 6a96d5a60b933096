"""The typer app of ``agent-doc``: the only agent_doc code that imports typer.

It lives outside ``agent_doc/cli/__init__.py`` so that importing the console
entry point (:mod:`agent_doc.cli.entry`) does not import typer; the fast paths
there (``--version``, ``write``, ``diff``) never load this module.

Each module in :mod:`agent_doc.cli.commands` defines ``register(app)`` and is
discovered here, so command groups never edit a shared file. Command bodies are
parse → one core call → render; they import the core lazily so that start-up
stays cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from agent_doc import __version__
from agent_doc.automation.upgrade import startup_notice
from agent_doc.cli import commands
from agent_doc.cli._click import ClickException
from agent_doc.cli._click import NoArgsIsHelpError
from agent_doc.cli._click import UsageError
from agent_doc.cli._errors import report_error
from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup

app = typer.Typer(
    name="agent-doc",
    cls=AgentDocGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Markdown documents as live conversations with an AI coding agent.",
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"agent-doc {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    version: bool = typer.Option(  # noqa: ARG001 - handled by its callback
        False,
        "--version",
        "-V",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Markdown documents as live conversations with an AI coding agent."""
    if ctx.invoked_subcommand not in (None, "upgrade"):
        notice = startup_notice()  # reads a cache; never touches the network
        if notice:
            typer.echo(notice, err=True)


for _info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{commands.__name__}.{_info.name}").register(app)

__all__ = ["app"]


def run_app(
    args: list[str], prog_name: str = "agent-doc", *, cli: typer.Typer | None = None
) -> int:
    """Run the typer app (``cli``, default :data:`app`) on ``args``; map every
    failure to one line and a code."""
    try:
        code = (cli or app)(args=args, prog_name=prog_name, standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except NoArgsIsHelpError as exc:
        exc.show()
        return 0
    except UsageError as exc:
        sys.stderr.write(usage_line(exc) + "\n")
        return exc.exit_code
    except ClickException as exc:
        exc.show()
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("agent-doc: aborted\n")
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # errors, Ctrl-C, cycle.cancel.Interrupted
        return report_error(exc)
    # standalone_mode=False: click returns the code of ``raise typer.Exit(n)``.
    return code if isinstance(code, int) else 0


def usage_line(exc: UsageError) -> str:
    """One ``agent-doc: COMMAND: problem (see COMMAND -h)`` line for a usage error."""
    message = " ".join(exc.format_message().split())
    message = message.replace("Value error, ", "").rstrip(".")  # typer's Literal
    if exc.ctx is None:
        return f"agent-doc: {message}"
    command = exc.ctx.command_path
    name = command.partition(" ")[2]
    where = f"{name}: " if name else ""
    return f"agent-doc: {where}{message} (see {command} -h)"
