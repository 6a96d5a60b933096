"""``agent_doc.share`` imports its heavy adapters (pycrdt, anyio, httpx, the
serve stack) inside the functions that use them, never at module level.

So importing a ``share`` module costs nothing until a document is shared: the
language server registers its sharing features (``share_sync`` imports
``share.peer``, ``share.mirror``, ``share.room_link``) without loading pycrdt
or httpx (measured: the ``share_sync`` import went from 220–320 ms to
15–45 ms on a busy two-core machine). Annotations name them under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.unit.test_import_placement import HEAVY_ADAPTERS

SHARE = Path(__file__).resolve().parents[3] / "agent_doc" / "share"


def _module_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level name) of imports that run when the module loads."""
    found: list[tuple[int, str]] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.extend((node.lineno, a.name.split(".")[0]) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found.append((node.lineno, (node.module or "").split(".")[0]))
            elif isinstance(node, ast.If):
                if not (
                    isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                ):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def test_share_modules_import_no_heavy_adapter_at_module_level() -> None:
    found = [
        f"{path.name}:{line}: {name}"
        for path in sorted(SHARE.glob("*.py"))
        for line, name in _module_level_imports(path)
        if name in HEAVY_ADAPTERS
    ]
    assert found == []


def test_the_guard_sees_a_module_level_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import anyio\nif TYPE_CHECKING:\n    import pycrdt\n")
    assert _module_level_imports(sample) == [(1, "anyio")]


def test_the_language_server_starts_without_the_sharing_stack() -> None:
    code = (
        "import sys\n"
        "from agent_doc_lsp.server import create_server\n"
        "create_server()\n"
        "print(sorted(m for m in ('pycrdt', 'httpx', 'httpx_ws', 'anyio')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
