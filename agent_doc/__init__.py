"""agent-doc: markdown documents as live conversations with an AI coding agent.

The core package: pure document logic (frontmatter, components, boundary, diff,
patch, merge) plus adapters for side effects (state under ``.agent-doc/``, git,
tmux, agent processes). It never imports typer, rich, pygls or lsprotocol.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
