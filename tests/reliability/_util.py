"""Shared helpers of the reliability suite: projects, real CLI processes, figures.

Every helper works on real files and real processes. Figures (scenario counts,
kills, timings) are appended as JSON lines to ``$AGENT_DOC_RELIABILITY_FIGURES``
when that variable is set (``scripts/reliability_report.py`` reads them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""
BIN = Path(sys.executable).parent
"""The venv's ``bin`` folder (holds ``agent-doc`` and ``agent-doc-lsp``)."""
AGENT_DOC = str(BIN / "agent-doc") if (BIN / "agent-doc").exists() else "agent-doc"
"""The ``agent-doc`` console script."""

TEMPLATE = """---
agent_doc_session: 00000000-0000-4000-8000-000000000000
agent_doc_format: template
---

# Doc

<!-- agent:status patch=replace -->
<!-- /agent:status -->

<!-- agent:exchange patch=append -->
## User

{prompt}
<!-- /agent:exchange -->
"""


def make_project(base: Path) -> Path:
    """Create ``base`` with an empty ``.agent-doc/`` and return it."""
    (base / ".agent-doc").mkdir(parents=True, exist_ok=True)
    return base


def template_doc(prompt: str = "Hello agent.") -> str:
    """A template-format session document with one user prompt."""
    return TEMPLATE.format(prompt=prompt)


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a CLI child: the test's env plus the repo on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["AGENT_DOC_NO_UPDATE_CHECK"] = "1"
    if extra:
        env.update(extra)
    return env


def run_cli(
    args: list[str],
    *,
    cwd: Path,
    stdin: str | bytes | None = None,
    timeout: float = 30.0,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``agent-doc ARGS`` (real process), bounded by ``timeout`` seconds."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run(
        [AGENT_DOC, *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        timeout=timeout,
        env=cli_env(),
        check=False,
    )


def record(kind: str, **figures: Any) -> None:
    """Print ``figures`` and append them to the figures file, if one is set."""
    line = {"kind": kind, **figures, "at": time.time()}
    print(f"[reliability] {json.dumps(line)}")
    target = os.environ.get("AGENT_DOC_RELIABILITY_FIGURES")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (relative path → bytes); locks ignored."""
    found: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink() and "locks" not in path.parts:
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found
