"""The import budget of the per-turn commands, measured with ``-X importtime``.

Every agent turn runs ``write``/``patch``/``diff``/``outline``/``status``/
``preflight``/``route`` (and editors ask ``--version``); each starts a fresh
interpreter, so what it imports is paid on every turn. This test runs each
command as a person's agent does and fails when a module outside the budget
is imported: only the standard library (less the heavy parts below) and
``agent_doc`` itself, never a third-party distribution (typer, pydantic,
pycrdt, yaml, git, httpx, the language server…). A module that needs more
imports it inside the function that uses it (the heavy adapters) — and a
command that must pay more says so here, in :data:`EXTRA`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY_STDLIB = frozenset(
    {
        "asyncio",
        "concurrent",
        "ctypes",
        "email",
        "hashlib",
        "http",
        "logging",
        "multiprocessing",
        "sqlite3",
        "ssl",
        "tomllib",
        "typing",
        "unittest",
        "xml",
        "zipfile",
    }
)
"""Standard-library packages a per-turn command does not need (``typing``:
records are :class:`agent_doc._runtime.record.Record` classes and annotations
import it only for the type checker; ``hashlib`` loads OpenSSL, the digests
come from :mod:`agent_doc._runtime.digest`)."""

SITE = frozenset(
    {"sitecustomize", "usercustomize", "_distutils_hack", "org", "_sha2", "_sha256"}
)
"""What the interpreter's own start-up may bring (site hooks, editable
installs) and names only probed for (``copy`` tries Jython's
``org.python.core``; :mod:`agent_doc._runtime.digest` tries ``_sha2``, then
``_sha256``, CPython's SHA-256 module before and after 3.12; importtime lists
the failed attempt)."""

EXTRA: dict[str, frozenset[str]] = {}
"""Command → modules it may import beyond the budget (none today)."""

RESPONSE = "<!-- patch:exchange -->\nThe answer.\n<!-- /patch:exchange -->\n"

COMMANDS = {
    "--version": ["--version"],
    "write": ["write", "plan.md"],
    "patch": ["patch", "plan.md", "status", "- [ ] ship it"],
    "diff": ["diff", "plan.md"],
    "outline": ["outline", "plan.md"],
    "status": ["status"],
    "preflight": ["preflight", "plan.md"],
    "route": ["route", "plan.md"],
}


@pytest.fixture
def session(project: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "init", "plan.md", "Plan"],
        cwd=project,
        check=True,
        capture_output=True,
    )
    with (project / "plan.md").open("a", encoding="utf-8") as doc:
        doc.write("What next?\n")
    return project


def imported_modules(args: list[str], cwd: Path) -> set[str]:
    """Top-level names of every module ``agent-doc ARGS`` imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_doc.cli.entry", *args],
        cwd=cwd,
        input=RESPONSE,
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name and name != "imported package":  # the header line
                names.add(name.split(".")[0])
    assert names, done.stderr  # importtime answered
    return names


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_per_turn_command_stays_within_its_import_budget(
    command: str, session: Path
) -> None:
    names = imported_modules(COMMANDS[command], session)
    allowed = EXTRA.get(command, frozenset())
    outside = sorted(
        name
        for name in names
        if name not in allowed
        and not name.startswith(("agent_doc", "__editable__"))
        and name not in SITE
        and (name not in sys.stdlib_module_names or name in HEAVY_STDLIB)
    )
    assert outside == [], f"`agent-doc {command}` imports {outside}"
    assert "agent_doc_lsp" not in names


def test_the_budget_catches_a_heavy_import(session: Path) -> None:
    """The measurement sees what a command imports (here, through typer)."""
    names = imported_modules(["mode", "plan.md"], session)
    assert "typer" in names
