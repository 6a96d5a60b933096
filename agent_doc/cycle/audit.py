"""``audit-docs``: check the instruction files agents read (spec §7.7).

Audited files: every ``CLAUDE.md``, ``AGENTS.md``, ``README.md`` and
``SKILL.md`` under the root (``.git``, ``.agent-doc``, ``node_modules``,
virtualenvs and build folders skipped). Checks, one :class:`Issue` each:

``path``
    A path in backticks whose first segment exists (under the file's folder or
    the root) but which itself does not, or an entry of a tree listing that
    does not exist: ``├──``/``└──`` lines in any code block, and trees drawn
    with indentation only in the code blocks of a section whose heading says
    "structure" (``## Project Structure``), like the original tool. Paths with
    placeholders or globs (``<``, ``{``, ``*``, ``$``, ``~``), URLs and paths
    under ``.agent-doc/`` (agent-doc's own state and optional settings, which
    come and go by design, as the skill ``init`` installs describes them) are
    ignored.
``budget``
    More than :data:`LINE_BUDGET` lines in one file.
``stale``
    A path the file references (existing) was modified more than
    :data:`STALE_DAYS` days after the file itself (filesystem mtimes).
``content``
    No actionable content: nothing but headings, blank lines and comments, or
    mostly placeholders (TODO, TBD, FIXME, lorem ipsum, coming soon…).

The root is ``--root``, else the nearest ancestor of the current folder with a
project marker (:data:`PROJECT_MARKERS`), else the nearest with ``.git``, else
the current folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc._runtime.lazy import lazy_compile

AUDITED_NAMES = frozenset({"CLAUDE.md", "AGENTS.md", "README.md", "SKILL.md"})
PROJECT_MARKERS = (
    "pyproject.toml", "package.json", "Cargo.toml", "go.mod", "setup.py",
    "pom.xml", "build.gradle", "Gemfile", "composer.json", "mix.exs", "deno.json",
)  # fmt: skip
SKIP_DIRS = frozenset(
    {".git", ".agent-doc", "node_modules", ".venv", "venv", "target", "dist",
     "build", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
)  # fmt: skip
LINE_BUDGET = 1000
STALE_DAYS = 30
_BACKTICK = lazy_compile(r"`([^`\s]+)`")
_PLAIN_PATH = lazy_compile(r"^[\w.\-/]+$")
_STRUCTURE_HEADING = lazy_compile(r"^#{1,6}\s.*\bstructure\b", re.IGNORECASE)
_INDENTED_ENTRY = lazy_compile(
    r"^(?P<indent>[ \t]*)(?P<name>[\w.\-]+/?)(?:\s+(?:#|←|<-|--).*)?$"
)
_TREE_LINE = lazy_compile(r"^(?P<indent>(?:[│|]\s{2,3}|\s{4})*)[├└]──\s+(?P<name>.+)$")
_PLACEHOLDER = lazy_compile(
    r"^\W*(todo|tbd|fixme|xxx|lorem ipsum|coming soon|placeholder|\.\.\.)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding: ``path:line: kind: message``."""

    path: str
    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """JSON form for ``--json``."""
        return asdict(self)


def resolve_root(root: Path | None = None, cwd: Path | None = None) -> Path:
    """``root``, else project markers walking up, else ``.git``, else ``cwd``."""
    if root is not None:
        return Path(root).resolve()
    start = (cwd or Path.cwd()).resolve()
    chain = (start, *start.parents)
    for folder in chain:
        if any((folder / m).exists() for m in PROJECT_MARKERS):
            return folder
    for folder in chain:
        if (folder / ".git").exists():
            return folder
    return start


def find_docs(root: Path) -> list[Path]:
    """The audited files under ``root``, sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found += [Path(folder) / f for f in files if f in AUDITED_NAMES]
    return sorted(found)


def _candidate(token: str) -> bool:
    if "://" in token or any(c in token for c in "<{*$~") or token.startswith("-"):
        return False
    if token.removeprefix("./").startswith(".agent-doc/"):
        return False  # state and optional settings: absent until used
    return "/" in token and bool(_PLAIN_PATH.match(token)) and not token.startswith("/")


def _resolve(token: str, bases: list[Path], strict: bool) -> Path | bool | None:
    """Existing path → Path; missing but relevant → False; not a repo path → None."""
    clean = token.rstrip("/").removeprefix("./")
    first = clean.split("/", 1)[0]
    for base in bases:
        if (base / clean).exists():
            return base / clean
    if strict or any((b / first).exists() for b in bases):
        return False
    return None


def _tree_paths(lines: list[str], bases: list[Path]) -> list[tuple[int, str]]:
    """``(line, relative path)`` of tree-listing entries inside code blocks.

    A ``name/`` line just above the tree that names an existing folder is the
    tree's top, so entries are checked inside it.
    """
    out: list[tuple[int, str]] = []
    stack: list[str] = []
    in_code, top = False, ""
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_code, stack, top = not in_code, [], ""
            continue
        match = _TREE_LINE.match(line) if in_code else None
        if match is None:
            name = line.strip().rstrip("/")
            exists = bool(name) and any((b / name).is_dir() for b in bases)
            top = name if in_code and line.strip().endswith("/") and exists else ""
            continue
        depth = len(match["indent"]) // 4
        name = re.split(r"\s+(#|←|<-|--)", match["name"].strip())[0].strip()
        stack = [*stack[:depth], name.rstrip("/")]
        if name and not any(c in name for c in "<{*$~…") and name != "...":
            out.append((number, "/".join([top, *stack] if top else stack)))
    return out


def _indented_tree_paths(lines: list[str], bases: list[Path]) -> list[tuple[int, str]]:
    """``(line, relative path)`` of indentation-only trees in "structure" sections.

    Nesting follows the indentation (tabs count 4). A first line naming a
    folder that does not exist, with everything else indented below it, is
    the project's own name (the tree's root) and is not checked.
    """
    out: list[tuple[int, str]] = []
    section = in_code = False
    stack: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_code, stack = not in_code, []
            continue
        if not in_code:
            if line.startswith("#"):
                section = bool(_STRUCTURE_HEADING.match(line))
            continue
        match = _INDENTED_ENTRY.match(line) if section else None
        if match is None or any(c in line for c in "├└│"):
            continue
        indent = len(match["indent"].expandtabs(4))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = match["name"].rstrip("/")
        if not stack and _is_tree_root(match["name"], name, bases):
            stack.append((indent, ""))
            continue
        stack.append((indent, name))
        out.append((number, "/".join(n for _, n in stack if n)))
    return out


def _is_tree_root(raw: str, name: str, bases: list[Path]) -> bool:
    """A top ``name/`` line that is not a folder here: the project's own name."""
    return raw.endswith("/") and not any((b / name).exists() for b in bases)


def audit_file(path: Path, root: Path) -> list[Issue]:
    """Every issue of one audited file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    issues: list[Issue] = []
    if len(lines) > LINE_BUDGET:
        msg = f"{len(lines)} lines, over the budget of {LINE_BUDGET}"
        issues.append(Issue(rel, len(lines), "budget", msg))
    bases = [path.parent, root] if path.parent != root else [root]
    referenced: list[tuple[int, Path]] = []
    checks = [
        (n, t, False) for n, ln in enumerate(lines, 1) for t in _BACKTICK.findall(ln)
    ]
    checks += [(n, t, True) for n, t in _tree_paths(lines, bases)]
    checks += [(n, t, True) for n, t in _indented_tree_paths(lines, bases)]
    for number, token, strict in checks:
        if not strict and not _candidate(token):
            continue
        found = _resolve(token, bases, strict)
        if found is False:
            issues.append(Issue(rel, number, "path", f"'{token}' does not exist"))
        elif isinstance(found, Path):
            referenced.append((number, found))
    issues += _staleness(path, rel, referenced)
    issues += _content(rel, lines)
    return issues


def _staleness(path: Path, rel: str, referenced: list[tuple[int, Path]]) -> list[Issue]:
    own = path.stat().st_mtime
    limit = own + STALE_DAYS * 86400
    newer = [(n, p) for n, p in referenced if p.stat().st_mtime > limit]
    if not newer:
        return []
    number, target = max(newer, key=lambda item: item[1].stat().st_mtime)
    days = int((target.stat().st_mtime - own) // 86400)
    msg = f"'{target.name}' changed {days} days after this file; review it"
    return [Issue(rel, number, "stale", msg)]


def _content(rel: str, lines: list[str]) -> list[Issue]:
    body, in_comment, in_front = [], False, bool(lines) and lines[0] == "---"
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if in_front:
            in_front = not (number > 1 and stripped == "---")
            continue
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        if stripped and not stripped.startswith("#"):
            body.append(stripped)
    if not body:
        return [
            Issue(rel, 1, "content", "no actionable content (empty or headings only)")
        ]
    placeholders = sum(1 for b in body if _PLACEHOLDER.match(b))
    if placeholders * 2 >= len(body):
        msg = f"mostly placeholders ({placeholders} of {len(body)} lines)"
        return [Issue(rel, 1, "content", msg)]
    return []


def audit_docs(root: Path) -> list[Issue]:
    """Audit every instruction file under ``root``."""
    return [issue for doc in find_docs(root) for issue in audit_file(doc, root)]
