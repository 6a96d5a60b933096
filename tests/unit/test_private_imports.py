"""No module imports another package's private module or another module's
private name (issue 38).

A ``_private`` module (``document/_textwalk.py``) is for the domain package
that holds it (``agent_doc.document``); a ``_private`` name (a function,
a constant) is for its own module. What other packages need is given a
public name (``document/linediff.py``, ``document/yrs_codec.py``,
``write.server_link.load_registration``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("agent_doc", "agent_doc_lsp")

PENDING: dict[str, frozenset[str]] = {}
"""Private modules kept for importers elsewhere that other work was changing
when the public name came (none left)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    base = REPO.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, dotted name)`` of everything of ours ``tree`` imports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PACKAGES:
                yield node.lineno, name


def _private_use(importer: str, name: str) -> str | None:
    """Why importing ``name`` from ``importer`` breaks the rule, or ``None``."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if not part.startswith("_") or part.startswith("__"):
            continue
        dotted = ".".join(parts[: i + 1])
        if _is_module(dotted):  # a private module: its domain package's own
            owner = ".".join(parts[: min(i, 2)])
            if importer in PENDING.get(dotted, ()):
                return None
        else:  # a private name: its module's own
            owner = ".".join(parts[:i])
        if importer != owner and not importer.startswith(owner + "."):
            return f"{dotted} belongs to {owner}"
        return None
    return None


def test_no_module_imports_a_private_module_or_name_of_another() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            importer = _module_name(path)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for line, name in _imported(tree):
                why = _private_use(importer, name)
                if why is not None:
                    found.append(f"{path.relative_to(REPO)}:{line}: {name} ({why})")
    assert not found, "give it a public name:\n" + "\n".join(found)


def test_the_rule_sees_a_private_module_and_a_private_name() -> None:
    """The check itself: each kind of breach is found, the allowed uses not."""
    assert _private_use("agent_doc.write.live", "agent_doc.document._textwalk.TRIES")
    assert _private_use("agent_doc.write.handoff", "agent_doc.write.server_link._send")
    assert (
        _private_use("agent_doc.document.merge", "agent_doc.document._textwalk.TRIES")
        is None
    )
    assert (
        _private_use("agent_doc.write.live", "agent_doc._runtime.record.Record") is None
    )
    assert _private_use("agent_doc.cli.app", "agent_doc.cli.commands._group.X") is None
