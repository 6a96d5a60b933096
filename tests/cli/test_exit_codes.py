"""The CLI's one error boundary maps every outcome to the right exit code."""

from __future__ import annotations

import subprocess
import sys

import typer

from agent_doc.cli.app import run_app
from agent_doc.cli.commands._group import CONTEXT_SETTINGS
from agent_doc.cli.commands._group import AgentDocGroup
from agent_doc.errors import ServerTimeout

# An app of its own, built as agent-doc's is: the shared app gets no commands
# from the tests.
probe = typer.Typer(cls=AgentDocGroup, context_settings=CONTEXT_SETTINGS)


@probe.callback()
def _main() -> None:
    """Commands that end as a real command may."""


@probe.command("exit")
def _exit_with(code: int) -> None:
    raise typer.Exit(code)


@probe.command("timeout")
def _timeout() -> None:
    raise ServerTimeout("server could not apply the edit in time")


def test_typer_exit_code_is_kept(capsys) -> None:
    assert run_app(["exit", "3"], cli=probe) == 3
    assert run_app(["exit", "0"], cli=probe) == 0


def test_agent_doc_error_gives_one_line_and_its_code(capsys) -> None:
    assert run_app(["timeout"], cli=probe) == 75
    err = capsys.readouterr().err
    assert err == "agent-doc: server could not apply the edit in time\n"


def test_the_shared_app_has_no_test_commands() -> None:
    from typer.main import get_command

    from agent_doc.cli.app import app

    names = get_command(app).commands  # type: ignore[attr-defined]
    assert not [n for n in names if n.startswith("zz-")]


def test_usage_error_is_exit_2_without_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "No such command" in result.stderr
