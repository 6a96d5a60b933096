"""Push diagnostics (``textDocument/publishDiagnostics``), debounced, off the loop.

A run is scheduled ``diagnosticsDebounceMs`` after the document opened, changed
or was saved, each new event restarting the wait. The run reads the text and
version together on the event loop, then checks the text in a worker thread
(component problems, the providers of :attr:`Hooks.problems` such as the
"will be sent" marks, and the conversion to LSP positions): on a 20 MB
document that is about a second, during which keystrokes keep being handled.
A run whose document changed meanwhile is dropped, never published (the change
scheduled a new one); a run that fires while the previous one still computes
waits for it and then checks the newest text, so at most one runs per
document. Closing a document cancels its run and clears its diagnostics.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from lsprotocol import types

from agent_doc.editor import problems
from agent_doc.editor.lint import config_problem
from agent_doc.errors import AgentDocError
from agent_doc_lsp import convert
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.server import ProblemProvider

logger = logging.getLogger(__name__)


@dataclass
class DiagnosticRuns:
    """The diagnostics runs of one server."""

    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    """URI → its run (checking, or about to publish)."""
    again: set[str] = field(default_factory=set)
    """URIs whose debounce fired while their run was still checking."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, DiagnosticRuns] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> DiagnosticRuns:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, DiagnosticRuns())


def check(
    ls: AgentDocLanguageServer,
    buffer: Buffer,
    config_error: str | None,
    providers: list[ProblemProvider],
    make_index: Callable[[], convert.LineIndex] | None = None,
) -> tuple[convert.LineIndex, list[types.Diagnostic]]:
    """The diagnostics of ``buffer`` (runs in a worker thread: reads only
    ``buffer``, what the providers allow and ``make_index``, which builds the
    line index of ``buffer.text``)."""
    found = problems(buffer.text)
    if config_error:
        found.insert(0, config_problem(config_error))
    for provider in providers:
        found.extend(provider(ls, buffer))
    index = make_index() if make_index else convert.LineIndex(buffer.text, ls.encoding)
    return index, [convert.diagnostic(index, p) for p in found]


async def publish(ls: AgentDocLanguageServer, uri: str) -> None:
    """Check ``uri`` off the loop; publish unless it changed meanwhile."""
    buffer = ls.buffers.get(uri)
    if buffer is None:
        return
    _configs, config_error = ls.configs_for(uri)
    providers = list(ls.hooks.problems)
    make_index = ls.line_index_maker(uri, buffer.text)
    index, found = await asyncio.to_thread(
        check, ls, buffer, config_error, providers, make_index
    )
    current = ls.buffers.version(uri)
    if current is None or current != buffer.version:
        logger.debug("diagnostics of %s version %s: stale", uri, buffer.version)
        return
    ls.keep_index(uri, buffer.version, index)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=buffer.uri, version=buffer.version, diagnostics=found
        )
    )


async def _run(ls: AgentDocLanguageServer, uri: str) -> None:
    """Publish ``uri``, once more if its debounce fired meanwhile."""
    runs = state_of(ls)
    try:
        while True:
            runs.again.discard(uri)
            try:
                await publish(ls, uri)
            except AgentDocError as exc:
                logger.warning("diagnostics of %s failed: %s", uri, exc)
            except Exception:
                logger.exception("diagnostics of %s failed", uri)
            if uri not in runs.again:
                return
    finally:
        if runs.tasks.get(uri) is asyncio.current_task():
            del runs.tasks[uri]


def start(ls: AgentDocLanguageServer, uri: str) -> None:
    """Run the diagnostics of ``uri`` now (after the one checking, if any)."""
    ls.diagnostic_timers.pop(uri, None)
    runs = state_of(ls)
    task = runs.tasks.get(uri)
    if task is not None and not task.done():
        runs.again.add(uri)
        return
    runs.tasks[uri] = asyncio.ensure_future(_run(ls, uri))


def schedule(ls: AgentDocLanguageServer, uri: str) -> None:
    """(Re)start the debounce timer of ``uri``."""
    timer = ls.diagnostic_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.loop is None:
        return
    delay = ls.options.diagnostics_debounce_ms / 1000
    ls.diagnostic_timers[uri] = ls.loop.call_later(delay, start, ls, uri)


def clear(ls: AgentDocLanguageServer, uri: str) -> None:
    """Cancel the run of a closed document and remove its diagnostics."""
    runs = state_of(ls)
    runs.again.discard(uri)
    task = runs.tasks.pop(uri, None)
    if task is not None:
        task.cancel()  # its thread finishes; the result is dropped
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
    )


def republish_all(ls: AgentDocLanguageServer) -> None:
    """Re-check every open document (settings changed)."""
    for uri in ls.buffers:
        schedule(ls, uri)


def register(server: AgentDocLanguageServer) -> None:
    """Subscribe to the document hooks."""
    server.hooks.did_open.append(schedule)
    server.hooks.did_change.append(schedule)
    server.hooks.did_save.append(schedule)
    server.hooks.did_close.append(clear)
    server.hooks.options_changed.append(republish_all)
