"""The fast-path parser: what it accepts, and what it leaves to typer."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.cli.commands._argv import Spec
from agent_doc.cli.commands._argv import Unhandled
from agent_doc.cli.commands._argv import looks_like_option
from agent_doc.cli.commands._argv import parse

WRITE = Spec(
    positionals=("file",),
    flags=("stream", "force-disk", "json"),
    options={"baseline-file": (Path, None), "debounce": (int, None)},
)
PATCH = Spec(positionals=("file", "component"), optional=("content",))


def test_positionals_flags_and_options_in_any_order() -> None:
    got = parse(["--json", "doc.md", "--baseline-file=b.md", "--debounce", "5"], WRITE)
    assert got == {
        "file": "doc.md",
        "stream": False,
        "force_disk": False,
        "json": True,
        "baseline_file": Path("b.md"),
        "debounce": 5,
    }


def test_optional_positional_and_double_dash() -> None:
    assert parse(["d.md", "status"], PATCH)["content"] is None
    assert parse(["d.md", "status", "--", "-x"], PATCH)["content"] == "-x"


@pytest.mark.parametrize(
    "args",
    [
        [],  # missing file
        ["a.md", "b.md"],  # one too many
        ["a.md", "--base", "b.md"],  # abbreviation: typer refuses it, so do we
        ["a.md", "-h"],
        ["a.md", "--debounce"],  # value missing
        ["a.md", "--debounce", "soon"],  # not an int
        ["a.md", "--json=yes"],  # a switch takes no value
    ],
)
def test_anything_else_goes_to_typer(args: list[str]) -> None:
    with pytest.raises(Unhandled):
        parse(args, WRITE)


@pytest.mark.parametrize(
    ("arg", "is_option"),
    [
        ("--json", True),
        ("--baseline-file=- x", True),
        ("-h", True),
        ("-V", True),
        ("--", False),
        ("-", False),
        ("- [ ] ship it", False),
        ("---", False),
        ("--- a rule", False),
        ("-5", False),
        ("-abc", False),
        ("--9lives", False),
    ],
)
def test_only_names_look_like_options(arg: str, is_option: bool) -> None:
    assert looks_like_option(arg) is is_option
    if not is_option and arg != "--":  # "--" ends the options instead
        assert parse(["d.md", "status", arg], PATCH)["content"] == arg
