"""Run the real ``agent-doc`` console script in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def agent_doc(
    *args: str,
    cwd: Path,
    stdin: str | bytes = "",
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run ``agent-doc ARGS`` in ``cwd``; stdout/stderr decoded as UTF-8."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )


def cli(
    cwd: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """:func:`agent_doc` with the folder first (the form the cycle tests use)."""
    return agent_doc(*args, cwd=cwd, stdin=stdin, env=env)
