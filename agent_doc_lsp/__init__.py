"""agent-doc-lsp: the language server every editor uses to talk to agent-doc.

Thin handlers that convert LSP ⇄ core calls; no domain logic lives here.
"""

from __future__ import annotations

from agent_doc import __version__

__all__ = ["__version__"]
