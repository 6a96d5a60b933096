"""Patterns compiled and loggers resolved on first use instead of at import.

A module-level ``re.compile`` runs on every start of every command that imports
the module, whether or not the command matches anything with it (about 50 of
them cost tens of milliseconds per process). :func:`lazy_compile` returns a
stand-in that compiles on the first attribute access (``.search``,
``.finditer``…) and then keeps the compiled pattern's methods, so later calls
cost what a compiled pattern's do. Use it only for patterns accessed through
their methods (never passed to ``re.sub``/``re.match`` as a pattern).

Likewise ``logging.getLogger(__name__)`` at module level imports
:mod:`logging` (a few milliseconds) in every command that imports the module,
even one that logs nothing: :func:`lazy_logger` resolves the real logger (same
name, same handlers and levels) on first use.

Where a check by hand does what a small pattern would (a write compiles none it
can avoid), the ASCII classes below stand for the pattern's character classes.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import logging
    from typing import Any

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
"""``[A-Za-z]``."""
DIGITS = "0123456789"
"""``[0-9]``."""
KEY_START = LETTERS + "_"
"""``[A-Za-z_]``: how a frontmatter key or a marker attribute's name starts."""
KEY_CHARS = LETTERS + DIGITS + "_-"
"""``[A-Za-z0-9_-]``: the rest of such a key or name."""


class _LazyPattern:
    """Compiles ``re.compile(pattern, flags)`` when first used."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        value = getattr(re.compile(*self._source), name)
        self.__dict__[name] = value  # later look-ups are plain attribute reads
        return value


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, deferred until the pattern is first used."""
    stand_in: re.Pattern[str] = _LazyPattern(pattern, flags)  # type: ignore[assignment]
    return stand_in


class _LazyLogger:
    """Looks up ``logging.getLogger(name)`` when first used."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger(self._name), attr)


def lazy_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)``, with ``logging`` imported on first use."""
    stand_in: logging.Logger = _LazyLogger(name)  # type: ignore[assignment]
    return stand_in
