"""Per-turn commands answered without typer print exactly what typer prints (issue 17)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DOC = "---\nagent_doc_format: template\n---\n# Title\n\ntext\n\n## Part\n\nmore\n"


def _run(
    args: list[str], cwd: Path, *, typer: bool
) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom agent_doc.cli.app import run_app\n"
        "raise SystemExit(run_app(sys.argv[1:], prog_name='agent-doc'))"
        if typer
        else "import sys\nfrom agent_doc.cli.entry import main\n"
        "raise SystemExit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *args],
        cwd=cwd, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _imported(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:")
    }


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["outline", "doc.md"], id="outline"),
        pytest.param(["outline", "doc.md", "--json"], id="outline-json"),
        pytest.param(["outline", "missing.md"], id="outline-missing"),
        pytest.param(["status", "--json"], id="status-json"),
        pytest.param(["route", "missing.md", "--json"], id="route-missing"),
    ],
)
def test_fast_path_output_equals_typer(project: Path, args: list[str]) -> None:
    (project / "doc.md").write_text(DOC)
    fast = _run(args, project, typer=False)
    slow = _run(args, project, typer=True)
    assert (fast.returncode, fast.stdout) == (slow.returncode, slow.stdout)
    assert "typer" not in _imported(fast.stderr)
    assert "typer" in _imported(slow.stderr)
    fast_errors = [x for x in fast.stderr.splitlines() if not x.startswith("import")]
    slow_errors = [x for x in slow.stderr.splitlines() if not x.startswith("import")]
    assert fast_errors == slow_errors


def test_help_and_unknown_options_still_go_to_typer(project: Path) -> None:
    helped = _run(["outline", "--help"], project, typer=False)
    assert helped.returncode == 0
    assert "Usage" in helped.stdout
    bad = _run(["outline", "doc.md", "--bogus"], project, typer=False)
    assert bad.returncode == 2
    assert "typer" in _imported(bad.stderr)
