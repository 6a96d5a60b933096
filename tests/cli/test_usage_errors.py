"""Bad input on the command line: one line on stderr, exit 2, nothing changed."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from agent_doc.cli.app import run_app
from agent_doc.cli.commands.install import EditorName
from agent_doc.editor.install import EDITORS
from agent_doc.store.events import TRANSPORTS
from tests.cli_runner import agent_doc

DOC = "---\nagent_doc_session: s1\n---\n# Notes\n\nWhat next?\n"

BAD_VALUES = [
    (["mode", "notes.md", "--format", "bogus"], "'--format'", "'template', 'inline'"),
    (["mode", "notes.md", "--write", "fast"], "'--write'", "'crdt', 'merge'"),
    (["convert", "notes.md", "--to", "html"], "'--to'", "'template', 'inline'"),
    (["claim", "notes.md", "--position", "middle"], "'--position'", "'left'"),
    (["layout", "notes.md", "--split", "x"], "'--split'", "'h', 'v'"),
    (["install", "--editor", "vim"], "'--editor'", "'neovim'"),
    (["plugin", "install", "vim"], "'editor'", "'neovim'"),
    (
        ["hook", "fire", "post_write", "notes.md", "--transport", "udp"],
        "'--transport'",
        "'chain'",
    ),
    (["route", "notes.md", "--debounce", "soon"], "'--debounce'", "integer"),
    (
        ["run", "notes.md", "--timeout", "-5"],
        "'--timeout'",
        "greater than or equal to 1",
    ),
    (
        ["route", "notes.md", "--prompt-timeout", "-1"],
        "'--prompt-timeout'",
        "greater than or equal to 0",
    ),
]


@pytest.fixture
def notes(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    doc = project / "notes.md"
    doc.write_text(DOC, "utf-8")
    monkeypatch.chdir(project)
    return doc


def _state(project: Path) -> list[tuple[str, bytes]]:
    return sorted(
        (str(p.relative_to(project)), p.read_bytes())
        for p in project.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )


@pytest.mark.parametrize(("args", "option", "hint"), BAD_VALUES, ids=lambda v: str(v))
def test_a_bad_option_value_is_a_usage_error(
    args: list[str],
    option: str,
    hint: str,
    notes: Path,
    project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = _state(project)
    assert run_app(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    command = " ".join(a for a in args[:2] if not a.endswith(".md"))
    if args[0] not in ("plugin", "hook"):
        command = args[0]
    assert err.startswith(f"agent-doc: {command}: Invalid value for {option}"), err
    assert hint in err
    assert err.rstrip().endswith(f"(see agent-doc {command} -h)")
    assert _state(project) == before


def test_mode_bogus_through_the_console_script(notes: Path, project: Path) -> None:
    """The issue's case: exit 1 before; now exit 2, one line, document unchanged."""
    result = agent_doc("mode", "notes.md", "--format", "bogus", cwd=project)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "'bogus' is not one of 'template', 'inline'" in result.stderr
    assert notes.read_text("utf-8") == DOC


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-command"], "agent-doc: No such command 'no-such-command'"),
        (["patch", "notes.md"], "agent-doc: patch: Missing argument 'component'"),
        (["write", "notes.md", "--bogus"], "agent-doc: write: No such option: --bogus"),
        (
            ["skill", "install", "--nope"],
            "agent-doc: skill install: No such option: --nope",
        ),
        (
            ["doctor", "--root", "no/such/dir"],
            "agent-doc: doctor: Invalid value for '--root'",
        ),
    ],
)
def test_every_usage_error_is_one_line(
    args: list[str], message: str, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert err.count("\n") == 1


def test_the_choices_follow_the_core() -> None:
    assert typing.get_args(EditorName) == EDITORS
    assert TRANSPORTS == ("file", "socket", "chain")
