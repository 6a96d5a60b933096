"""The bundled Claude Code skill (spec §7.16): install, check, version.

``agent_doc/data/SKILL.md`` is packaged with agent-doc; its frontmatter field
``agent-doc-version`` is rendered from :data:`agent_doc.__version__` when it is
installed, so the skill can tell when the binary is newer. ``skill install``
writes ``.claude/skills/agent-doc/SKILL.md`` under the project root (skipping
an identical file); ``skill check`` compares the installed file with the
bundled one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from agent_doc import __version__
from agent_doc._runtime.lazy import lazy_compile
from agent_doc.errors import StateError
from agent_doc.store.state import StateStore
from agent_doc.store.state import atomic_write_text

SKILL_RELPATH = Path(".claude/skills/agent-doc/SKILL.md")
VERSION_PLACEHOLDER = "{{AGENT_DOC_VERSION}}"
_VERSION_RE = lazy_compile(r"^agent-doc-version:\s*(\S+)\s*$", re.MULTILINE)


def bundled_skill() -> str | None:
    """The bundled SKILL.md with its version rendered; ``None`` if not packaged."""

    try:
        source = resources.files("agent_doc").joinpath("data", "SKILL.md")
        if not source.is_file():
            return None
        text = source.read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError):
        return None
    return text.replace(VERSION_PLACEHOLDER, __version__)


def skill_version(text: str) -> str | None:
    """The ``agent-doc-version`` field of a SKILL.md text."""
    match = _VERSION_RE.search(text)
    return match.group(1) if match else None


def skill_path(root: Path) -> Path:
    """``<root>/.claude/skills/agent-doc/SKILL.md``."""
    return Path(root) / SKILL_RELPATH


@dataclass(frozen=True, slots=True)
class SkillInstall:
    """What ``skill install`` did."""

    path: Path
    changed: bool
    version: str | None


def install_skill(root: Path) -> SkillInstall:
    """Write the bundled skill under ``root`` unless an identical one is there."""
    text = bundled_skill()
    if text is None:
        raise StateError("this agent-doc build has no bundled SKILL.md")
    target = skill_path(root)
    try:
        same = target.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        same = False
    if not same:
        atomic_write_text(target, text)
    return SkillInstall(target, not same, skill_version(text))


SkillState = Literal["ok", "missing", "outdated"]


@dataclass(frozen=True, slots=True)
class SkillCheck:
    """The result of ``skill check``."""

    path: Path
    state: SkillState
    installed_version: str | None
    bundled_version: str | None

    @property
    def message(self) -> str:
        """One line saying what is wrong (or that all is well)."""
        if self.state == "missing":
            return f"skill missing: {self.path} (run: agent-doc skill install)"
        if self.state == "outdated":
            return (
                f"skill outdated: {self.path} is version "
                f"{self.installed_version or 'unknown'}, bundled is "
                f"{self.bundled_version} (run: agent-doc skill install)"
            )
        return f"skill up to date: {self.path} (version {self.installed_version})"


def check_skill(root: Path) -> SkillCheck:
    """Compare the installed skill with the bundled one."""
    text = bundled_skill()
    if text is None:
        raise StateError("this agent-doc build has no bundled SKILL.md")
    target = skill_path(root)
    bundled = skill_version(text)
    try:
        installed = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return SkillCheck(target, "missing", None, bundled)
    state: SkillState = "ok" if installed == text else "outdated"
    return SkillCheck(target, state, skill_version(installed), bundled)


def saved_baseline(path: Path) -> Path:
    """Path of the baseline ``preflight`` saved for ``path`` (must exist)."""
    store = StateStore.for_document(Path(path))
    baseline = store.baseline_path(Path(path))
    if not baseline.is_file():
        raise StateError(f"no saved baseline for {path}; run agent-doc preflight first")
    return baseline
