"""The fast parser and typer read every fast-path command line alike.

One table of argument lists per fast command (valid lines, content that starts
with a dash, ``--``, unknown options, missing arguments, ``-h``/``--help``)
drives both parsers. Each line has one expected outcome: parsed values (the
same from both), a usage error (exit 2) or help. The fast parser hands usage
errors and help to typer (:class:`Unhandled`), so for those it must refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer._click.exceptions import UsageError
from typer.exceptions import Exit
from typer.main import get_command

from agent_doc.cli.app import app
from agent_doc.cli.app import run_app
from agent_doc.cli.commands import _fast
from agent_doc.cli.commands import _fast_turn
from agent_doc.cli.commands._argv import Unhandled
from agent_doc.cli.commands._argv import parse
from tests.cli_runner import agent_doc

SPECS = {**_fast._SPECS, **_fast_turn._SPECS}

USAGE = "usage"
HELP = "help"
TYPER = "typer"
"""A line with an option only typer knows: the fast parser leaves it to typer,
which reads it (no usage error)."""

TYPER_ONLY: dict[str, dict[str, Any]] = {
    "diff": {"from_ref": None, "to_ref": None},
    "write": {
        "backlog_add": (), "backlog_edit": (), "backlog_gate": (),
        "backlog_ungate": (), "backlog_done": (), "backlog_reorder": None,
    },
}  # fmt: skip
"""Options of the typer command that the fast parser does not take, with
their defaults (``diff --from``, ``write --backlog-*``: rare, and not per turn)."""

CASES: dict[str, list[tuple[list[str], Any]]] = {
    "patch": [
        (["d.md", "tasks"], {"content": None}),
        (["d.md", "tasks", "- [ ] ship it"], {"content": "- [ ] ship it"}),
        (
            ["d.md", "tasks", "- [ ] ship it", "--json"],
            {"content": "- [ ] ship it", "json": True},
        ),
        (
            ["--json", "d.md", "tasks", "- a\n- b"],
            {"content": "- a\n- b", "json": True},
        ),
        (["d.md", "tasks", "---"], {"content": "---"}),
        (["d.md", "tasks", "-5"], {"content": "-5"}),
        (["d.md", "tasks", "-"], {"content": "-"}),
        (
            ["d.md", "tasks", "--- a rule ---", "--force-disk"],
            {"content": "--- a rule ---", "force_disk": True},
        ),
        (["d.md", "tasks", "--", "--json"], {"content": "--json"}),
        (["d.md", "tasks", "--", "-h"], {"content": "-h"}),
        (["d.md", "--", "tasks", "-x"], {"component": "tasks", "content": "-x"}),
        (["d.md", "tasks", "-x"], USAGE),
        (["d.md", "tasks", "--bogus"], USAGE),
        (["d.md", "tasks", "--json=yes"], USAGE),
        (["d.md", "tasks", "a", "b"], USAGE),
        (["d.md"], USAGE),
        ([], USAGE),
        (["d.md", "tasks", "-h"], HELP),
        (["--help"], HELP),
    ],
    "write": [
        (["d.md"], {}),
        (["d.md", "--backlog-done", "a1", "--backlog-done", "b2"], TYPER),
        (["d.md", "--backlog-add", "- [ ] x"], TYPER),
        (
            ["d.md", "--stream", "--force-disk", "--json"],
            {"stream": True, "force_disk": True, "json": True},
        ),
        (["d.md", "--baseline-file", "b.md"], {"baseline_file": "b.md"}),
        (["--baseline-file=b.md", "d.md"], {"baseline_file": "b.md"}),
        (["d.md", "--origin", "-run-"], {"origin": "-run-"}),
        (["d.md", "--origin=- x"], {"origin": "- x"}),
        (["d.md", "--origin"], USAGE),
        (["d.md", "--base", "b.md"], USAGE),
        (["d.md", "- stray"], USAGE),
        (["d.md", "--", "--json"], USAGE),
        ([], USAGE),
        (["-h"], HELP),
        (["d.md", "--help"], HELP),
    ],
    "diff": [
        (["d.md"], {}),
        (["d.md", "--from", "~1"], TYPER),
        (["d.md", "--from", "1", "--to", "2", "--json"], TYPER),
        (["d.md", "--json"], {"json": True}),
        (["--", "d.md"], {}),
        (["d.md", "-"], USAGE),
        (["d.md", "--jsn"], USAGE),
        ([], USAGE),
        (["-h"], HELP),
    ],
    "outline": [
        (["d.md", "--json"], {"json": True}),
        (["d.md", "-j"], USAGE),
        (["d.md", "d.md"], USAGE),
        (["d.md", "-h"], HELP),
    ],
    "status": [
        ([], {}),
        (["--json", "--root", "."], {"json": True, "root": "."}),
        (["--root"], USAGE),
        (["d.md"], USAGE),
        (["- x"], USAGE),
        (["-h"], HELP),
        (["--help"], HELP),
    ],
    "preflight": [
        (["d.md"], {}),
        (["d.md", "--no-wait"], {"no_wait": True}),
        (["d.md", "--excerpts", "--no-wait"], {"no_wait": True, "excerpts": True}),
        (["d.md", "--no-wait=1"], USAGE),
        (["d.md", "--wait"], USAGE),
        ([], USAGE),
        (["-h", "d.md"], HELP),
    ],
    "route": [
        (["d.md"], {}),
        (
            [
                "d.md",
                "--pane",
                "%3",
                "--debounce",
                "500",
                "--prompt-timeout",
                "2.5",
                "--json",
            ],
            {"pane": "%3", "debounce": 500, "prompt_timeout": 2.5, "json": True},
        ),
        (["d.md", "--prompt-timeout=0"], {"prompt_timeout": 0.0}),
        (["d.md", "--debounce", "soon"], USAGE),
        (["d.md", "--debounce", "1.5"], USAGE),
        (["d.md", "--prompt-timeout", "-1"], USAGE),
        (["d.md", "--pane"], USAGE),
        (["d.md", "-p", "%3"], USAGE),
        ([], USAGE),
        (["d.md", "-h"], HELP),
    ],
}

TYPER_NAMES = {"json": "as_json"}
"""Where a typer parameter is named differently from the fast parser's key."""


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def _fast_outcome(command: str, args: list[str]) -> Any:
    try:
        values = parse(args, SPECS[command])
    except Unhandled:
        return None
    return {TYPER_NAMES.get(k, k): _plain(v) for k, v in values.items()}


def _typer_outcome(command: str, args: list[str]) -> Any:
    group = get_command(app)
    root = group.make_context("agent-doc", [command])
    try:
        name, cmd, rest = group.resolve_command(root, [command, *args])
        assert cmd is not None
        sub = cmd.make_context(name, rest, parent=root)
    except UsageError as exc:  # exit 2, or the line says which code it had
        return USAGE if exc.exit_code == 2 else f"usage error, exit {exc.exit_code}"
    except Exit as exc:
        return HELP if exc.exit_code == 0 else f"exit {exc.exit_code}"
    only = TYPER_ONLY.get(command, {})
    values = {k: _plain(v) for k, v in sub.params.items()}
    if all(values.get(k) == default for k, default in only.items()):
        return {k: v for k, v in values.items() if k not in only}
    return TYPER


def _expected_values(command: str, expected: dict[str, Any]) -> dict[str, Any]:
    """The defaults of ``command``'s line, overridden by ``expected``."""
    spec = SPECS[command]
    values: dict[str, Any] = dict.fromkeys(spec.flags, False)
    values.update({n: default for n, (_, default) in (spec.options or {}).items()})
    values.update(dict.fromkeys(spec.optional))
    values.update(
        {n: {"file": "d.md", "component": "tasks"}[n] for n in spec.positionals}
    )
    values = {k.replace("-", "_"): v for k, v in values.items()}
    values.update(expected)
    return {TYPER_NAMES.get(k, k): _plain(v) for k, v in values.items()}


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [(c, a, e) for c, cases in CASES.items() for a, e in cases],
    ids=[f"{c}:{a!r}" for c, cases in CASES.items() for a, _ in cases],
)
def test_both_parsers_read_the_line_alike(
    command: str,
    args: list[str],
    expected: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.md").write_text("hello\n", "utf-8")
    (tmp_path / "b.md").write_text("hello\n", "utf-8")
    fast = _fast_outcome(command, args)
    typed = _typer_outcome(command, args)
    if isinstance(expected, dict):
        want = _expected_values(command, expected)
        assert fast == want
        assert typed == want
    else:
        assert fast is None, "the fast parser must leave this line to typer"
        assert typed == expected
        if expected == HELP:
            assert "Usage: agent-doc" in capsys.readouterr().out


def test_every_fast_command_has_cases() -> None:
    assert set(CASES) == set(SPECS)


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "typer"])
def test_patch_with_a_markdown_list_item(
    project: Path, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The regression of issue 27: "No such option: -" (exit 2) on both paths."""
    doc = project / "notes.md"
    doc.write_text(
        "---\nagent_doc_session: s1\n---\n<!-- agent:tasks -->\n<!-- /agent:tasks -->\n",
        "utf-8",
    )
    args = ["patch", "notes.md", "tasks", "- [ ] ship it", "--force-disk"]
    if fast:  # the console script, as a person runs it
        result = agent_doc(*args, cwd=project)
        assert result.returncode == 0, result.stderr
    else:  # the typer app itself, which the fast path falls back to
        monkeypatch.chdir(project)
        assert run_app(args) == 0
    text = doc.read_text("utf-8")
    assert "<!-- agent:tasks -->\n- [ ] ship it\n<!-- /agent:tasks -->" in text


def test_any_command_takes_dash_led_free_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only the fast ones: ``init``'s TITLE goes through the typer group."""
    monkeypatch.chdir(tmp_path)
    assert run_app(["init", "notes.md", "- draft -"]) == 0
    assert "# - draft -" in (tmp_path / "notes.md").read_text("utf-8")
