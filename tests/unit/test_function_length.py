"""No function of the product is longer than 80 lines (house style).

A function is measured from its ``def`` line to its last line (docstring,
comments and blank lines included, decorators not); nested functions count
inside their parent and on their own. A typer command keeps its option
declarations short with module-level ``Annotated[...]`` aliases.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("agent_doc", "agent_doc_lsp")
LIMIT = 80


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """``path:line name (N lines)`` of every function in ``root`` over ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    where = path.relative_to(root.parent).as_posix()
                    found.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_is_over_80_lines() -> None:
    found = [line for top in PACKAGES for line in long_functions(REPO / top)]
    assert not found, "functions over 80 lines (split them):\n" + "\n".join(found)


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    module = tmp_path / "long.py"
    module.write_text(f"async def too_long():\n{body}\n\ndef short():\n    pass\n")
    found = long_functions(tmp_path)
    assert len(found) == 1
    assert "too_long" in found[0]
    assert f"({LIMIT + 1} lines)" in found[0]
