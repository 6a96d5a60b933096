"""A module logger that imports :mod:`logging` only when something is logged.

``import logging`` costs a few milliseconds, paid by every per-turn command that
imports a module with a module-level ``logging.getLogger(__name__)`` even when
it logs nothing. :func:`lazy_logger` returns a stand-in that resolves the real
logger (same name, same handlers and levels) on first use.
"""

from __future__ import annotations

from agent_doc.document._static import TYPE_CHECKING
from agent_doc.document._static import cast

if TYPE_CHECKING:
    import logging
    from typing import Any


class _LazyLogger:
    """Looks up ``logging.getLogger(name)`` when first used."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger(self._name), attr)


def lazy_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)``, with ``logging`` imported on first use."""
    return cast("logging.Logger", _LazyLogger(name))
