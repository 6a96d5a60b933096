"""Plain result types of the editor-support functions (``str`` offsets)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextChange:
    """Replace ``text[start:end]`` with ``new_text``."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True, slots=True)
class Problem:
    """One diagnostic: ``severity`` is ``error``, ``warning`` or ``info``."""

    start: int
    end: int
    message: str
    severity: str
    code: str
    """Stable identifier (``unclosed``, ``deprecated-field``, ``stale-boundary``…)."""
    deprecated: bool = False
    """Render with the *Deprecated* tag."""


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix: a title and the changes that make the problem go away."""

    title: str
    code: str
    """The :attr:`Problem.code` it fixes."""
    start: int
    end: int
    """The span of the problem it fixes (to attach the diagnostic)."""
    changes: tuple[TextChange, ...]
    preferred: bool = True


@dataclass(frozen=True, slots=True)
class Symbol:
    """An outline entry: ``kind`` is ``component``, ``frontmatter``, ``field`` or
    ``heading``; ``[start, end)`` is the whole symbol, ``[sel_start, sel_end)``
    its name."""

    name: str
    detail: str
    kind: str
    start: int
    end: int
    sel_start: int
    sel_end: int
    children: tuple[Symbol, ...] = ()


@dataclass(frozen=True, slots=True)
class Fold:
    """A foldable line span (0-based, inclusive); ``kind`` is ``region`` or
    ``frontmatter``."""

    start_line: int
    end_line: int
    kind: str


@dataclass(frozen=True, slots=True)
class Completion:
    """A completion item replacing ``text[start:end]`` with ``insert``.

    ``kind`` is ``field``, ``value``, ``component`` or ``attribute``.
    """

    label: str
    insert: str
    kind: str
    detail: str
    documentation: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class HoverInfo:
    """Markdown hover text for ``text[start:end]``."""

    markdown: str
    start: int
    end: int
