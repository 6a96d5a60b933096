"""``audit-docs`` checks ``## Project Structure`` trees in both styles.

A tree drawn with indentation only (no ``├──``/``└──``) was not checked, so a
missing path there passed; the original tool checks both styles. Code blocks
outside a "structure" section (shell commands…) are never read as trees.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability._util import run_cli

BOX = (
    "```\nmyproj/\n├── agent_doc/\n│   ├── cli/\n│   │   └── {leaf}\n└── tests/\n```\n"
)
INDENTED = (
    "```\nmyproj/\n  agent_doc/\n    cli/\n      {leaf}   # the app\n"
    "    store/\n  tests/\n\tnotes.md\n```\n"
)
COMMANDS = "## Commands\n\n```\npip install -e .\nmake test\nfoo/\n  bar\n```\n"


def _project(base: Path, tree: str, leaf: str) -> Path:
    (base / "agent_doc" / "cli").mkdir(parents=True)
    (base / "agent_doc" / "store").mkdir()
    (base / "agent_doc" / "cli" / "app.py").write_text("")
    (base / "tests").mkdir()
    (base / "tests" / "notes.md").write_text("")
    (base / "pyproject.toml").write_text("")
    text = "# Guide\n\nHow to work here.\n\n## Project Structure\n\n"
    (base / "AGENTS.md").write_text(text + tree.format(leaf=leaf) + "\n" + COMMANDS)
    return base


@pytest.mark.parametrize("style", ["box", "indented"])
def test_a_missing_tree_entry_fails_the_audit(tmp_path: Path, style: str) -> None:
    """Exit 1 and one ``path`` line naming the missing entry, in either style."""
    tree = BOX if style == "box" else INDENTED
    root = _project(tmp_path, tree, "gone.py")
    done = run_cli(["audit-docs", "--root", str(root)], cwd=root)
    out = (done.stdout + done.stderr).decode()
    assert done.returncode == 1, out
    assert "path: 'agent_doc/cli/gone.py' does not exist" in out
    assert out.count("does not exist") == 1, out


@pytest.mark.parametrize("style", ["box", "indented"])
def test_an_accurate_tree_passes(tmp_path: Path, style: str) -> None:
    """Every entry exists (the first line is the project's own name): exit 0."""
    tree = BOX if style == "box" else INDENTED
    root = _project(tmp_path, tree, "app.py")
    done = run_cli(["audit-docs", "--root", str(root)], cwd=root)
    assert done.returncode == 0, (done.stdout + done.stderr).decode()
