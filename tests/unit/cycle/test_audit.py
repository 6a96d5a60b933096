"""audit-docs: paths, tree listings, budget, staleness, content, root detection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent_doc.cycle.audit import audit_docs
from agent_doc.cycle.audit import resolve_root


def _kinds(root: Path) -> list[tuple[str, str]]:
    return [(i.kind, i.message) for i in audit_docs(root)]


def test_clean_docs_have_no_issues(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "README.md").write_text(
        "# Tool\n\nRun `src/main.py` to start; config in `~/.config/x/*.toml`.\n"
        "MIME `text/html` is not a path.\n"
    )
    assert audit_docs(tmp_path) == []


def test_missing_backtick_path_and_tree_entry(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "AGENTS.md").write_text(
        "# Layout\n\nSee `src/gone.py`.\n\n```\nproj/\n├── src/\n│   ├── main.py\n"
        "│   └── old.py   # removed\n└── docs/\n```\n"
    )
    issues = [str(i) for i in audit_docs(tmp_path)]
    assert "AGENTS.md:3: path: 'src/gone.py' does not exist" in issues
    assert "AGENTS.md:9: path: 'src/old.py' does not exist" in issues
    assert "AGENTS.md:10: path: 'docs' does not exist" in issues
    assert len(issues) == 3


def test_line_budget(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Rules\n" + "Do this.\n" * 1000)
    assert [k for k, _ in _kinds(tmp_path)] == ["budget"]


def test_staleness_by_mtime(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    code = tmp_path / "lib" / "core.py"
    code.write_text("")
    doc = tmp_path / "CLAUDE.md"
    doc.write_text("# Notes\n\nThe core is `lib/core.py`.\n")
    old = code.stat().st_mtime - 60 * 86400
    os.utime(doc, (old, old))
    assert [k for k, _ in _kinds(tmp_path)] == ["stale"]


def test_placeholder_and_empty_content(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(
        "---\nname: x\n---\n# Skill\n\n<!-- later -->\n"
    )
    (tmp_path / "README.md").write_text("# Project\n\nTODO: write this.\nTBD\n")
    kinds = sorted(str(i) for i in audit_docs(tmp_path))
    assert kinds[0].startswith("README.md:1: content: mostly placeholders")
    assert kinds[1].startswith("a/SKILL.md:1: content: no actionable content")


def test_root_resolution(tmp_path: Path) -> None:
    nested = tmp_path / "repo" / "pkg" / "sub"
    nested.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    assert resolve_root(cwd=nested) == (tmp_path / "repo").resolve()
    (tmp_path / "repo" / "pkg" / "pyproject.toml").write_text("")
    assert resolve_root(cwd=nested) == (tmp_path / "repo" / "pkg").resolve()
    assert resolve_root(tmp_path) == tmp_path.resolve()


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "README.md").write_text("# X\n\nUse it well.\n")
    run = [sys.executable, "-m", "agent_doc.cli.entry", "audit-docs"]
    ok = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# X\n\nRead `docs/missing.md`.\n")
    bad = subprocess.run(
        [*run, "--root", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    import json

    issues = json.loads(bad.stdout)["issues"]
    assert issues == [
        {
            "path": "README.md",
            "line": 3,
            "kind": "path",
            "message": "'docs/missing.md' does not exist",
        }
    ]
