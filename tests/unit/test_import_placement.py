"""Imports sit at module level, where a reader sees a module's dependencies.

The per-turn commands are kept light by a budget
(``tests/cli/test_import_budget.py``), not by hiding imports in functions. An
import inside a function is allowed only

- in a CLI command body (``agent_doc/cli/commands/``): each command pays for
  its own dependencies, not every other command;
- of a heavy third-party adapter (:data:`HEAVY_ADAPTERS`), a standard-library
  package the budget keeps off the per-turn path (:data:`HEAVY_STDLIB`) or one
  a per-turn command would load only for a rare branch (:data:`LAZY_STDLIB`);
- of an agent_doc module in :data:`LAZY`: an adapter over those libraries, or
  a module a per-turn command must not load, each with its reason.

``if TYPE_CHECKING:`` blocks are module level (they never run) and are fine
anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.cli.test_import_budget import HEAVY_STDLIB

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "agent_doc"
COMMAND_BODIES = "agent_doc/cli/commands/"

HEAVY_ADAPTERS = frozenset(
    {
        "acp",
        "anyio",
        "click",
        "git",
        "httpx",
        "httpx_ws",
        "lsprotocol",
        "markdownify",
        "pycrdt",
        "pygls",
        "tomli",
        "typer",
        "uvicorn",
        "watchfiles",
        "websockets",
        "wsproto",
        "yaml",
    }
)
"""Third-party distributions imported where they are used (tens of ms each)."""

LAZY_STDLIB: dict[str, str] = {
    "datetime": "3 ms; only a component with timestamp=true stamps a patch",
    "difflib": "2 ms; `diff` of appended lines needs none (test_diff_fast)",
    "shutil": "5 ms (bz2, lzma); the same long-socket-path branch as tempfile",
    "socket": "8 ms; a write sends its hook event through it only to a bound listener",
    "subprocess": "8 ms; `patch` runs one only for a component with a hook",
    "tempfile": "9 ms; only a socket path too long for AF_UNIX needs a directory",
    "uuid": "imports platform, 6 ms; only a new session key needs it",
}
"""Standard-library modules a per-turn command would load for a rare branch."""

LAZY: dict[str, str] = {
    "agent_doc.cli.app": "the typer app; the per-turn fast path must not import typer",
    "agent_doc.cli.entry -> agent_doc.cli.commands": "the fast paths' dispatch:"
    " each per-turn command loads only its own command module",
    "agent_doc.cli.entry -> agent_doc.cli._logs": "imports logging; only the"
    " typer path quiets library logs (a per-turn fast path logs nothing)",
    "agent_doc.write.handoff -> agent_doc.store.state": "only the fallbacks of a"
    " hand-off keep state; the hand-off path loads no state store (test_handoff)",
    "agent_doc.write.handoff -> agent_doc.store.events": "only an old server's"
    " reply is finished here; events loads the state store (test_handoff)",
    "agent_doc.tmux.agent_profile -> agent_doc.tmux.processes": "`status` reads"
    " profiles; only a live pane's foreground process needs ps (subprocess, 8 ms)",
    "agent_doc.automation.busy -> agent_doc.automation.user_typing": "write and"
    " preflight only set a status; reading one (and a turn's heartbeat) needs the"
    " document's timeout, and user_typing loads dataclasses (15 ms)",
    "agent_doc.automation.upgrade -> agent_doc.automation.upgrade_verify": "every"
    " typer command reads the upgrade notice; only `upgrade` downloads and checks"
    " an archive (tarfile, zipfile, tempfile)",
    "agent_doc.cycle.preflight -> agent_doc.cycle.links": "only a document with"
    " `links` checks them; links loads subprocess and dataclasses (25 ms)",
    "agent_doc.cycle.recovery -> agent_doc.write": "preflight only looks for a"
    " pending response; only one an interrupted write left is replayed through"
    " the write path (the merge, 15 ms)",
}
"""agent_doc modules (or packages) a function may import, with the reason;
``importer -> module`` allows it in one importer only."""


def _module_of(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(node: ast.Import | ast.ImportFrom, path: Path) -> list[str]:
    """The absolute module names an import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        return [node.module or ""]
    base = _module_of(path).split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return [".".join([*base, *([node.module] if node.module else [])])]


def allowed(module: str, path: Path) -> bool:
    """May ``path`` import ``module`` inside a function?"""
    if path.relative_to(REPO).as_posix().startswith(COMMAND_BODIES):
        return True
    top = module.split(".")[0]
    if top in HEAVY_ADAPTERS or top in HEAVY_STDLIB or top in LAZY_STDLIB:
        return True
    importer = _module_of(path)
    for entry in LAZY:
        source, _, lazy = entry.rpartition(" -> ")
        if source in ("", importer) and (
            module == lazy or module.startswith(lazy + ".")
        ):
            return True
    return False


def function_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import inside a function of ``path``."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                found.extend((child.lineno, name) for name in _target(child, path))
            visit(
                child,
                in_function
                or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)),
            )

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


PENDING: tuple[str, ...] = ()
"""Packages whose imports are still being moved (issue 28)."""


def misplaced() -> list[str]:
    return [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(REPO).as_posix().startswith(PENDING)
        for line, module in function_imports(path)
        if not allowed(module, path)
    ]


def test_imports_are_at_module_level() -> None:
    found = misplaced()
    assert found == [], "imports inside functions:\n" + "\n".join(found)


def test_the_guard_sees_a_function_import() -> None:
    assert function_imports(PACKAGE / "cli" / "entry.py")  # the typer app, lazily


def test_every_lazy_entry_is_a_module() -> None:
    for entry in LAZY:
        name = entry.rpartition(" -> ")[2]
        relative = Path(*name.split("."))
        assert (REPO / relative).is_dir() or (REPO / relative).with_suffix(
            ".py"
        ).is_file(), name
