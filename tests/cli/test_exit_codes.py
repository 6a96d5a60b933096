"""The CLI's one error boundary maps every outcome to the right exit code."""

from __future__ import annotations

import subprocess
import sys

import typer

from agent_doc.cli.app import app
from agent_doc.cli.app import run_app
from agent_doc.errors import ServerTimeout


@app.command("zz-test-exit", hidden=True)
def _exit_with(code: int) -> None:
    raise typer.Exit(code)


@app.command("zz-test-timeout", hidden=True)
def _timeout() -> None:
    raise ServerTimeout("server could not apply the edit in time")


def test_typer_exit_code_is_kept(capsys) -> None:
    assert run_app(["zz-test-exit", "3"]) == 3
    assert run_app(["zz-test-exit", "0"]) == 0


def test_agent_doc_error_gives_one_line_and_its_code(capsys) -> None:
    assert run_app(["zz-test-timeout"]) == 75
    err = capsys.readouterr().err
    assert err == "agent-doc: server could not apply the edit in time\n"


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
