"""docs/architecture.md lists every package and module of the tree as it is."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_map():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "module_map", ROOT / "scripts" / "module_map.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_map_matches_the_tree() -> None:
    module_map = _module_map()
    current = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert current == module_map.updated_document(), (
        "docs/architecture.md is stale: run python scripts/module_map.py"
    )
