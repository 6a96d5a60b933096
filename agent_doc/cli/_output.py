"""The CLI's single error boundary and its output helpers.

Every command raises :class:`agent_doc.errors.AgentDocError` for expected
failures; this module turns it into one line on stderr and the error's exit
code. Nothing else in the CLI prints errors or chooses exit codes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import typer
from typer._click.exceptions import ClickException
from typer._click.exceptions import NoArgsIsHelpError

from agent_doc.cli._errors import report_error


def fail(message: str, code: int = 1) -> None:
    """Print ``agent-doc: <message>`` on stderr and exit with ``code``."""
    sys.stderr.write(f"agent-doc: {message}\n")
    raise SystemExit(code)


def emit_json(value: Any) -> None:
    """Write ``value`` as JSON (one document, trailing newline) on stdout."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def emit(text: str) -> None:
    """Write ``text`` on stdout exactly as given."""
    sys.stdout.write(text)


def info(message: str) -> None:
    """Write a progress/diagnostic line on stderr (never stdout)."""
    sys.stderr.write(f"{message}\n")


def run_app(args: list[str], prog_name: str = "agent-doc") -> int:
    """Run the typer app on ``args``; map every failure to one line and a code."""
    from agent_doc.cli.app import app

    try:
        code = app(args=args, prog_name=prog_name, standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except NoArgsIsHelpError as exc:
        exc.show()
        return 0
    except ClickException as exc:
        exc.show()
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("agent-doc: aborted\n")
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except (Exception, KeyboardInterrupt) as exc:
        return report_error(exc)
    # standalone_mode=False: click returns the code of ``raise typer.Exit(n)``.
    return code if isinstance(code, int) else 0
