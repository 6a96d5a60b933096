"""The one seam to the click that typer vendors (``typer._click``).

typer 0.26 vendored click and stopped supporting ``import click``; it
re-exports ``Exit``, ``Abort`` and ``BadParameter`` but not the general
errors the CLI's error boundary catches, nor ``Command``/``Context`` for its
command group (upstream: fastapi/typer#1867, "Expose a public general-purpose
CLI error after vendoring Click"). Every use of ``typer._click`` goes through
this module, so a typer release that exposes them changes one file. The floor
``typer>=0.26`` in pyproject.toml is where ``typer._click`` appeared.
"""

from __future__ import annotations

from typer._click import Command
from typer._click import Context
from typer._click.exceptions import ClickException
from typer._click.exceptions import NoArgsIsHelpError
from typer._click.exceptions import UsageError

__all__ = ["ClickException", "Command", "Context", "NoArgsIsHelpError", "UsageError"]
