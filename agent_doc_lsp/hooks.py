"""Listeners the server runs for its lifecycle and document notifications.

pygls allows one handler per LSP method, so ``features.lifecycle`` and
``features.sync`` own those handlers and run, through
:meth:`AgentDocLanguageServer.emit <agent_doc_lsp.server.AgentDocLanguageServer.emit>`,
every listener other features added to :class:`Hooks`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from agent_doc.editor.model import Problem
    from agent_doc_lsp.buffers import Buffer
    from agent_doc_lsp.server import AgentDocLanguageServer

DocumentListener = Callable[["AgentDocLanguageServer", str], Any]
"""``listener(ls, uri)``; may be a coroutine function."""
ServerListener = Callable[["AgentDocLanguageServer"], Any]
"""``listener(ls)``; may be a coroutine function."""
ProblemProvider = Callable[["AgentDocLanguageServer", "Buffer"], "list[Problem]"]
"""``provider(ls, buffer)`` → more problems to publish with the diagnostics.
It runs in a worker thread (:mod:`agent_doc_lsp.features.diagnostics`): it reads
``buffer`` and its own thread-safe state, and hands anything that talks to the
client to the loop (``ls.loop.call_soon_threadsafe``)."""


@dataclass
class Hooks:
    """Listeners run by the one handler pygls allows per notification.

    Each listener is isolated: an ``AgentDocError`` is logged as a warning, any
    other exception with its traceback, and the remaining listeners still run.
    """

    initialized: list[ServerListener] = field(default_factory=list)
    """After ``initialized`` and the first configuration pull."""
    options_changed: list[ServerListener] = field(default_factory=list)
    """After :attr:`AgentDocLanguageServer.options` changed."""
    shutdown: list[ServerListener] = field(default_factory=list)
    """On ``shutdown`` (stop sockets, flush state)."""
    did_open: list[DocumentListener] = field(default_factory=list)
    """After pygls stored a newly opened document."""
    did_change: list[DocumentListener] = field(default_factory=list)
    """After pygls applied a ``didChange`` to its copy."""
    did_save: list[DocumentListener] = field(default_factory=list)
    """After ``didSave``."""
    did_close: list[DocumentListener] = field(default_factory=list)
    """After pygls dropped a closed document."""
    problems: list[ProblemProvider] = field(default_factory=list)
    """More diagnostics of a document (called by each diagnostics run)."""
