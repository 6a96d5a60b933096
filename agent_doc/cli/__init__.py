"""The ``agent-doc`` command line (typer app in :mod:`agent_doc.cli.app`).

``app`` is resolved lazily so that ``import agent_doc.cli.entry`` stays free of
typer (≈85 ms); see :mod:`agent_doc.cli.entry`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["app"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from agent_doc.cli.app import app

        return app
    raise AttributeError(f"module 'agent_doc.cli' has no attribute {name!r}")
