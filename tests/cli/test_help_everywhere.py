"""``-h`` is ``--help`` on the app, every command and every sub-command."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.core import TyperGroup
from typer.main import get_command

from agent_doc.cli.app import app
from agent_doc.cli.app import run_app
from tests.cli_runner import agent_doc


def _command_paths() -> list[list[str]]:
    """Every command line that names a command, sub-apps included (hidden too)."""
    paths: list[list[str]] = [[]]
    todo: list[tuple[list[str], TyperGroup]] = [([], get_command(app))]  # type: ignore[list-item]
    while todo:
        prefix, group = todo.pop()
        for name, command in group.commands.items():
            path = [*prefix, name]
            if name.startswith("zz-test"):
                continue  # commands other tests add to the shared app
            paths.append(path)
            if isinstance(command, TyperGroup):
                todo.append((path, command))
    return sorted(paths)


PATHS = _command_paths()


def test_the_walk_finds_the_sub_apps() -> None:
    assert ["hook", "fire"] in PATHS
    assert ["skill"] in PATHS
    assert len(PATHS) > 30


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "agent-doc" for p in PATHS])
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_flag(
    path: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app([*path, flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: agent-doc"), out
    assert "-h, --help" in out


@pytest.mark.parametrize(
    "command", ["write", "patch", "diff", "outline", "status", "preflight", "route"]
)
def test_h_on_the_fast_commands(command: str, tmp_path: Path) -> None:
    """The console script sends -h past its fast parser to typer's help."""
    result = agent_doc(command, "-h", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: agent-doc {command}")


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "agent-doc" for p in PATHS])
def test_help_is_written_for_the_person_at_the_keyboard(
    path: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """No spec section numbers; arguments and values as ``FILE``/``TEXT``."""
    assert run_app([*path, "-h"]) == 0
    out = capsys.readouterr().out
    assert "§" not in out, out
    usage = out.splitlines()[0]
    assert "{" not in usage, usage
    for label in ("<str>", "<int>", "<path>", "<float>"):
        assert label not in out, out
    if "\nArguments:\n" in out:
        rows = out.split("\nArguments:\n")[1].split("\n\n")[0].splitlines()
        for row in rows:
            if row.startswith("  ") and not row.startswith("   "):
                name = row.split()[0].rstrip(".")
                assert name == name.upper(), row
                assert name in usage, (name, usage)
