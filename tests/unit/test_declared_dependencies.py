"""Every third-party module the shipped code imports is a declared dependency.

A clean ``pip install`` gets only ``[project].dependencies``; a module that a
test extra happens to pull in (``packaging`` once) works here and crashes for
users. The imports are read with ``ast`` from every file of ``agent_doc/`` and
``agent_doc_lsp/``: lazy imports inside functions and type-only imports under
``if TYPE_CHECKING:`` alike (a type-only import is still a dependency: the
types and ``mypy`` of a clean install need it, and a transitive dependency
that provides it today may drop it). The standard library is
``sys.stdlib_module_names`` (plus ``tomllib``, imported only on the Pythons
that have it), and a distribution maps to the import names its RECORD installs
(``packages_distributions()`` of Python 3.10 reads only ``top_level.txt``,
which wheels built without setuptools lack).

The other direction holds too: every declared distribution is imported by the
shipped code and has a floor. That each floor really installs and passes the
unit tests is ``scripts/check_lowest_versions.sh`` (run by ``scripts/test.sh``).
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import Distribution
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("agent_doc", "agent_doc_lsp")
RUNTIME = "runtime"
TYPE_ONLY = "type-only"
# tomllib is the standard library's from 3.11; before it the code imports tomli.
# _sha2 is CPython's SHA-256 module from 3.12 (_sha256 before it), which
# agent_doc/_runtime/digest.py tries first.
STDLIB = frozenset(sys.stdlib_module_names) | {"tomllib", "_sha2", "_sha256"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> dict[str, str]:
    """Top-level names of absolute imports → ``runtime`` or ``type-only``.

    A name imported both ways is ``runtime``.
    """
    found: dict[str, str] = {}

    def add(name: str, kind: str) -> None:
        if found.get(name) != RUNTIME:
            found[name] = kind

    def visit(node: ast.AST, kind: str) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, TYPE_ONLY)
            for child in node.orelse:
                visit(child, kind)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name.split(".")[0], kind)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            add(node.module.split(".")[0], kind)
        for child in ast.iter_child_nodes(node):
            visit(child, kind)

    visit(tree, RUNTIME)
    return found


def third_party_imports() -> dict[str, list[str]]:
    """Third-party top-level module → the shipped files importing it.

    Each file is listed as ``path`` or ``path (type-only)``.
    """
    local = {*SHIPPED, "__future__"}
    users: dict[str, list[str]] = {}
    for package in SHIPPED:
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"), str(path))
            for name, kind in _imports(tree).items():
                if name not in local and name not in STDLIB:
                    where = str(path.relative_to(REPO))
                    if kind == TYPE_ONLY:
                        where += " (type-only)"
                    users.setdefault(name, []).append(where)
    return users


def _project() -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project: dict[str, Any] = tomllib.loads(
        (REPO / "pyproject.toml").read_text("utf-8")
    )["project"]
    return project


def declared_requirements() -> dict[str, str]:
    """Canonical name → the requirement text, for ``[project].dependencies``."""
    requirements = {}
    for requirement in _project()["dependencies"]:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, f"unreadable requirement {requirement!r}"
        requirements[_canonical(match.group(1))] = requirement
    return requirements


def declared_distributions() -> set[str]:
    """Canonical names in ``[project].dependencies`` (markers ignored)."""
    return set(declared_requirements())


def _top_level_names(dist: Distribution) -> set[str]:
    """The importable top-level names a distribution installs."""
    names = set((dist.read_text("top_level.txt") or "").split())
    for file in dist.files or ():
        top = file.parts[0]
        if len(file.parts) > 1:
            if top not in ("..", "__pycache__") and not top.endswith(
                (".dist-info", ".data")
            ):
                names.add(top)
        elif file.suffix in (".py", ".so", ".pyd"):
            names.add(file.name.split(".")[0])
    return names


def modules_of(declared: set[str]) -> dict[str, set[str]]:
    """Declared distribution → the import names it provides.

    Installed ones through their RECORD; one not installed here (a marker for
    another Python) by its own name.
    """
    provides = {name: {name.replace("-", "_")} for name in declared}
    for dist in distributions():
        name = _canonical(dist.metadata["Name"] or "")
        if name in declared:
            provides[name] |= _top_level_names(dist)
    return provides


def covered_modules(declared: set[str]) -> set[str]:
    """Import names the declared distributions provide."""
    return set().union(*modules_of(declared).values())


def test_the_scan_sees_lazy_and_type_only_imports() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "import both\n"
        "if TYPE_CHECKING:\n    import onlytypes\n    import both\n"
        "else:\n    import fallback\n"
        "if typing.TYPE_CHECKING:\n    from typed.sub import T\n"
        "def f():\n    import lazy.sub\n    from other.x import y\n"
        "from . import sibling\n"
    )
    assert _imports(tree) == {
        "typing": RUNTIME,
        "both": RUNTIME,
        "onlytypes": TYPE_ONLY,
        "fallback": RUNTIME,
        "typed": TYPE_ONLY,
        "lazy": RUNTIME,
        "other": RUNTIME,
    }


def test_every_import_is_a_declared_dependency() -> None:
    imports = third_party_imports()
    # The scan really reads the code: these are imported on purpose, cattrs
    # for a type only (it arrives with pygls, and is declared all the same).
    assert {"yaml", "pygls", "typer", "pycrdt", "httpx", "cattrs"} <= set(imports)
    covered = covered_modules(declared_distributions())
    missing = {m: files for m, files in imports.items() if m not in covered}
    assert not missing, (
        "imported but not in [project].dependencies (a clean install may lack "
        f"them): {missing}"
    )


def test_an_undeclared_type_only_import_would_be_reported() -> None:
    """What the scan finds under TYPE_CHECKING is held to the same rule."""
    covered = covered_modules(declared_distributions() - {"cattrs"})
    imports = third_party_imports()
    assert "cattrs" not in covered
    assert any(f.endswith("(type-only)") for f in imports["cattrs"])


def test_a_test_only_module_would_be_reported() -> None:
    """``packaging`` arrives with pytest, not with a clean install."""
    covered = covered_modules(declared_distributions())
    assert "packaging" not in covered
    assert "pytest" not in covered


USED_BY_NAME = {
    "websockets": (
        'ws="websockets-sansio"',
        REPO / "agent_doc" / "share" / "server.py",
    ),
}
"""Distributions the code never imports but names for another library to load
(uvicorn imports its websocket protocol by name): where the name stands."""


def test_every_declared_dependency_is_imported_and_has_a_floor() -> None:
    """No declaration the code does not use; none without a lowest version.

    The floors themselves are proven by scripts/check_lowest_versions.sh.
    """
    imports = set(third_party_imports())
    requirements = declared_requirements()
    for dist, (needle, where) in USED_BY_NAME.items():
        assert needle in where.read_text(encoding="utf-8"), (dist, where)
    unused = {
        dist
        for dist, modules in modules_of(set(requirements)).items()
        if not modules & imports and dist not in USED_BY_NAME
    }
    assert not unused, f"declared but never imported by the shipped code: {unused}"
    no_floor = {
        dist
        for dist, text in requirements.items()
        if not re.search(r"(>=|~=|==)\s*\d", text.split(";")[0])
    }
    assert not no_floor, f"declared without a lowest version: {no_floor}"
