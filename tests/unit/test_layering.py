"""The core package must never import a front-end library."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import agent_doc


def test_core_imports_no_front_end_library() -> None:
    modules = [
        m.name
        for m in pkgutil.walk_packages(agent_doc.__path__, "agent_doc.")
        if not m.name.startswith("agent_doc.cli")
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = [m for m in ('typer', 'rich', 'pygls', 'lsprotocol', 'click') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"core imported: {out}"
    assert "agent_doc.errors" in modules
