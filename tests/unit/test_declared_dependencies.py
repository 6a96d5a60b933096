"""Every third-party module the shipped code imports is a declared dependency.

A clean ``pip install`` gets only ``[project].dependencies``; a module that a
test extra happens to pull in (``packaging`` once) works here and crashes for
users. The imports are read with ``ast`` from every file of ``agent_doc/`` and
``agent_doc_lsp/`` (lazy imports inside functions included; ``if
TYPE_CHECKING:`` blocks excluded), the standard library is
``sys.stdlib_module_names``, and distributions map to import names through
``importlib.metadata.packages_distributions()``.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("agent_doc", "agent_doc_lsp")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> set[str]:
    """Top-level names of absolute imports outside ``if TYPE_CHECKING:``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def third_party_imports() -> dict[str, list[str]]:
    """Third-party top-level module → the shipped files importing it."""
    local = {*SHIPPED, "__future__"}
    users: dict[str, list[str]] = {}
    for package in SHIPPED:
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"), str(path))
            for name in _runtime_imports(tree):
                if name not in local and name not in sys.stdlib_module_names:
                    users.setdefault(name, []).append(str(path.relative_to(REPO)))
    return users


def declared_distributions() -> set[str]:
    """Canonical names in ``[project].dependencies`` (markers ignored)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    names = set()
    for requirement in project["dependencies"]:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, f"unreadable requirement {requirement!r}"
        names.add(_canonical(match.group(1)))
    return names


def covered_modules(declared: set[str]) -> set[str]:
    """Import names the declared distributions provide.

    Installed ones through their RECORD; one not installed here (a marker for
    another Python) by its own name.
    """
    covered = {name.replace("-", "_") for name in declared}
    for module, dists in packages_distributions().items():
        if any(_canonical(d) in declared for d in dists):
            covered.add(module)
    return covered


def test_the_scan_sees_lazy_imports_and_skips_type_checking_blocks() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import onlytypes\n"
        "def f():\n    import lazy.sub\n    from other.x import y\n"
        "from . import sibling\n"
    )
    assert _runtime_imports(tree) == {"typing", "lazy", "other"}


def test_every_runtime_import_is_a_declared_dependency() -> None:
    imports = third_party_imports()
    # The scan really reads the code: these are imported on purpose.
    assert {"yaml", "pygls", "typer", "pycrdt", "httpx"} <= set(imports)
    covered = covered_modules(declared_distributions())
    missing = {m: files for m, files in imports.items() if m not in covered}
    assert not missing, (
        "imported but not in [project].dependencies (a clean install lacks "
        f"them): {missing}"
    )


def test_a_test_only_module_would_be_reported() -> None:
    """``packaging`` arrives with pytest, not with a clean install."""
    covered = covered_modules(declared_distributions())
    assert "packaging" not in covered
    assert "pytest" not in covered
