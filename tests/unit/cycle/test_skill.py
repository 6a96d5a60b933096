"""The bundled skill: rendering, install, check, and project init installing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_doc import __version__
from agent_doc.cycle.project import init_project
from agent_doc.cycle.skill import VERSION_PLACEHOLDER
from agent_doc.cycle.skill import bundled_skill
from agent_doc.cycle.skill import check_skill
from agent_doc.cycle.skill import install_skill
from agent_doc.cycle.skill import skill_path
from agent_doc.cycle.skill import skill_version


def test_bundled_skill_is_rendered_with_the_package_version() -> None:
    text = bundled_skill()
    assert text is not None
    assert VERSION_PLACEHOLDER not in text
    assert skill_version(text) == __version__
    for step in ("agent-doc preflight", "agent-doc write", "agent-doc commit"):
        assert step in text
    assert "<!-- patch:exchange -->" in text


def test_install_is_idempotent_and_check_reports(project: Path) -> None:
    assert check_skill(project).state == "missing"
    first = install_skill(project)
    assert first.changed
    assert first.path == skill_path(project)
    assert not install_skill(project).changed
    assert check_skill(project).state == "ok"
    old = first.path.read_text().replace(
        f"agent-doc-version: {__version__}", "agent-doc-version: 0.0.1"
    )
    first.path.write_text(old)
    result = check_skill(project)
    assert result.state == "outdated"
    assert result.installed_version == "0.0.1"
    assert "0.0.1" in result.message
    assert __version__ in result.message


def test_project_init_installs_the_bundled_skill(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    result = init_project(root)
    assert ".claude/skills/agent-doc/SKILL.md" in result.created
    assert skill_path(root).read_text() == bundled_skill()
    assert init_project(root).created == ()


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_skill_cli_check_install_and_baseline(project: Path) -> None:
    missing = cli(project, "skill", "check")
    assert missing.returncode == 1
    assert "skill missing" in missing.stderr
    assert cli(project, "skill", "install").returncode == 0
    assert cli(project, "skill", "check").returncode == 0
    skill_path(project).write_text("---\nagent-doc-version: 0.0.1\n---\n")
    outdated = cli(project, "skill", "check")
    assert outdated.returncode == 1
    assert "skill outdated" in outdated.stderr
    doc = project / "d.md"
    doc.write_text("hello\n")
    assert cli(project, "skill", "baseline", "d.md").returncode == 1
    assert cli(project, "preflight", "d.md", "--no-wait").returncode == 0
    baseline = cli(project, "skill", "baseline", "d.md")
    assert baseline.returncode == 0
    assert Path(baseline.stdout.strip()).read_text() == "hello\n"
