from __future__ import annotations

from pathlib import Path

from agent_doc.cycle.instructions import BUDGET_CHARS
from agent_doc.cycle.instructions import render_instructions
from agent_doc.cycle.instructions import resolve_instructions


def test_nearest_active_wins_and_drafts_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root rules\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    (tmp_path / "a" / "AGENTS.md").write_text("a rules\n")
    (sub / "AGENTS.md").write_text("  \n\n")
    doc = sub / "doc.md"
    doc.write_text("x")
    found = resolve_instructions(doc, tmp_path)
    assert found is not None
    assert found.path == tmp_path / "a" / "AGENTS.md"
    assert found.inherited is True
    assert found.drafts_skipped == (sub / "AGENTS.md",)


def test_own_folder_is_not_inherited(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("mine\n")
    doc = tmp_path / "doc.md"
    found = resolve_instructions(doc, tmp_path)
    assert found is not None
    assert found.inherited is False


def test_nothing_above_root_is_used(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("outside\n")
    root = tmp_path / "proj"
    root.mkdir()
    assert resolve_instructions(root / "doc.md", root) is None


def test_render_wraps_and_truncates(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * 40_000)
    found = resolve_instructions(tmp_path / "d.md", tmp_path)
    assert found is not None
    out = render_instructions(found)
    assert len(out) <= BUDGET_CHARS
    assert out.startswith("These instructions come from the effective AGENTS.md")
    assert "<AGENTS_MD>\n" in out
    assert out.endswith("</AGENTS_MD>\n")
    assert "truncated" in out
    small = render_instructions(
        resolve_instructions(tmp_path / "d.md", tmp_path) or found, budget=100_000
    )
    assert "truncated" not in small
