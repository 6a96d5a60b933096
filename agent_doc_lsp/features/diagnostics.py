"""Push diagnostics (``textDocument/publishDiagnostics``), debounced.

On open the document is checked at once; on change a run is scheduled
``diagnosticsDebounceMs`` after the last keystroke. Text and version are read
together in that run, so each publication carries the version it describes.
Closing a document clears its diagnostics.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from agent_doc.editor import problems
from agent_doc.editor.lint import config_problem
from agent_doc.errors import AgentDocError
from agent_doc_lsp import convert
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)


def publish(ls: AgentDocLanguageServer, uri: str) -> None:
    """Check ``uri`` now and publish the result with its version."""
    ls.diagnostic_timers.pop(uri, None)
    if uri not in ls.buffers:
        return
    doc, index = ls.document(uri)
    _configs, config_error = ls.configs_for(uri)
    found = problems(index.text)
    if config_error:
        found.insert(0, config_problem(config_error))
    for provider in ls.hooks.problems:
        found.extend(provider(ls, uri))
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=doc.uri,
            version=doc.version,
            diagnostics=[convert.diagnostic(index, p) for p in found],
        )
    )


def _safe_publish(ls: AgentDocLanguageServer, uri: str) -> None:
    try:
        publish(ls, uri)
    except AgentDocError as exc:
        logger.warning("diagnostics of %s failed: %s", uri, exc)
    except Exception:
        logger.exception("diagnostics of %s failed", uri)


def schedule(ls: AgentDocLanguageServer, uri: str) -> None:
    """(Re)start the debounce timer of ``uri``."""
    timer = ls.diagnostic_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.loop is None:
        return
    delay = ls.options.diagnostics_debounce_ms / 1000
    ls.diagnostic_timers[uri] = ls.loop.call_later(delay, _safe_publish, ls, uri)


def clear(ls: AgentDocLanguageServer, uri: str) -> None:
    """Remove the diagnostics of a closed document."""
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
    )


def republish_all(ls: AgentDocLanguageServer) -> None:
    """Re-check every open document (settings changed)."""
    for uri in ls.buffers:
        schedule(ls, uri)


def register(server: AgentDocLanguageServer) -> None:
    """Subscribe to the document hooks."""
    server.hooks.did_open.append(_safe_publish)
    server.hooks.did_change.append(schedule)
    server.hooks.did_save.append(schedule)
    server.hooks.did_close.append(clear)
    server.hooks.options_changed.append(republish_all)
