"""Project-level data for the editor (adapter: reads files, caches by mtime).

* :class:`ConfigCache` — component configs of a document's project, reloaded
  only when ``components.toml`` / ``config.toml`` change.
* :class:`SessionIndex` — the session documents under the workspace folders
  (markdown files with agent-doc frontmatter or components) and their outline,
  re-read only when a file's mtime or size changes.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_doc.document.component_config import COMPONENTS_TOML
from agent_doc.document.component_config import CONFIG_TOML
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import load_component_configs
from agent_doc.editor.outline import is_session_document
from agent_doc.editor.outline import outline
from agent_doc.errors import AgentDocError
from agent_doc.store.state import STATE_DIR
from agent_doc.store.state import find_project_root

SKIP_DIRS = frozenset({".git", STATE_DIR, "node_modules"})
"""Folders never descended into when scanning for session documents."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""Larger markdown files are skipped by the scan."""


def _stamp(path: Path) -> tuple[int, int] | None:
    """mtime and size of a regular file; ``None`` for anything else (a FIFO)."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_mtime_ns, st.st_size


class ConfigCache:
    """Component configs per project root, keyed by the config files' stamps."""

    def __init__(self) -> None:
        self._cache: dict[
            Path | None, tuple[object, dict[str, ComponentConfig], str | None]
        ] = {}

    def for_document(
        self, path: Path | None
    ) -> tuple[dict[str, ComponentConfig], str | None]:
        """Return ``(configs, error message or None)`` for a document path."""
        root = find_project_root(path) if path is not None else None
        if root is None:
            return {}, None
        folder = root / STATE_DIR
        stamp = (_stamp(folder / COMPONENTS_TOML), _stamp(folder / CONFIG_TOML))
        cached = self._cache.get(root)
        if cached and cached[0] == stamp:
            return cached[1], cached[2]
        try:
            configs, error = load_component_configs(root), None
        except AgentDocError as exc:
            configs, error = {}, str(exc)
        self._cache[root] = (stamp, configs, error)
        return configs, error


@dataclass(frozen=True, slots=True)
class SessionSymbol:
    """A component (or the frontmatter) of a session document on disk."""

    name: str
    kind: str
    path: Path
    start_line: int
    end_line: int
    container: str


def _lines(text: str, start: int, end: int) -> tuple[int, int]:
    first = text.count("\n", 0, start)
    return first, first + text.count("\n", start, end)


def _symbols(path: Path, text: str) -> list[SessionSymbol]:
    out: list[SessionSymbol] = []
    stack = [(s, path.name) for s in outline(text)]
    while stack:
        sym, container = stack.pop()
        if sym.kind in ("component", "frontmatter"):
            out.append(
                SessionSymbol(
                    sym.name,
                    sym.kind,
                    path,
                    *_lines(text, sym.start, sym.end),
                    container,
                )
            )
            stack.extend((child, sym.name) for child in sym.children)
    return sorted(out, key=lambda s: s.start_line)


def markdown_files(roots: Iterable[Path]) -> Iterator[Path]:
    """Markdown files under ``roots``, skipping :data:`SKIP_DIRS`."""
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(
                d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
            )
            for name in sorted(files):
                if name.endswith((".md", ".markdown")):
                    yield Path(folder) / name


class SessionIndex:
    """Outline of every session document under some roots, cached per file."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[tuple[int, int], list[SessionSymbol]]] = {}
        self._lock = threading.Lock()
        self.reads = 0
        """How many files were (re-)read: lets tests observe the cache."""

    def _file_symbols(self, path: Path) -> list[SessionSymbol]:
        stamp = _stamp(path)
        if stamp is None or stamp[1] > MAX_FILE_BYTES:
            self._files.pop(path, None)
            return []
        cached = self._files.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        self.reads += 1
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        symbols = _symbols(path, text) if is_session_document(text) else []
        self._files[path] = (stamp, symbols)
        return symbols

    def search(self, roots: Iterable[Path], query: str) -> list[SessionSymbol]:
        """Symbols whose name contains ``query`` (case-insensitive; "" = all)."""
        with self._lock:
            return self._search(roots, query)

    def _search(self, roots: Iterable[Path], query: str) -> list[SessionSymbol]:
        wanted = query.lower()
        seen: set[Path] = set()
        out: list[SessionSymbol] = []
        for path in markdown_files(roots):
            seen.add(path)
            out.extend(s for s in self._file_symbols(path) if wanted in s.name.lower())
        for gone in set(self._files) - seen:
            del self._files[gone]
        return out
