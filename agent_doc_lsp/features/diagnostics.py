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

The structure diagnostics (component, boundary, frontmatter and item problems)
of the last run are kept with the document's structure key: while every change
since was neutral (typing inside one prose line or a neutral Enter,
:mod:`agent_doc.document.neutral_edit`) and none of them lies on an edited
line, a run reuses them as they are (their lines shifted past the Enters) and
reads the text only if a provider
(the unsent marks) needs it, and then through the chunks' view
(:class:`~agent_doc.document.textlike.ChunkView`): a prose keystroke's run
joins no text.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

import attrs
from lsprotocol import types

from agent_doc.document.neutral_edit import shifted_line
from agent_doc.editor import problems
from agent_doc.editor.lint import config_problem
from agent_doc.errors import AgentDocError
from agent_doc_lsp import convert
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.server import ProblemProvider
from agent_doc_lsp.structure_key import StructureKey

logger = logging.getLogger(__name__)


@dataclass
class DiagnosticRuns:
    """The diagnostics runs of one server."""

    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    """URI → its run (checking, or about to publish)."""
    again: set[str] = field(default_factory=set)
    """URIs whose debounce fired while their run was still checking."""
    structure: dict[
        str, tuple[StructureKey, str | None, str, list[types.Diagnostic], int]
    ] = field(default_factory=dict)
    """URI → the structure diagnostics of its last run (component, boundary,
    frontmatter and item problems, config error first) with the structure
    key, config error and encoding they were made under, and the number of
    neutral Enters noted under the key when the text was read."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, DiagnosticRuns] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> DiagnosticRuns:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, DiagnosticRuns())


@dataclass(frozen=True, slots=True)
class Reading:
    """What a diagnostics run reads on the event loop, for :func:`check`."""

    buffer: Buffer
    """The buffer: its :attr:`~Buffer.view` of the chunks (no join), or only
    its head when :attr:`kept` answers and no provider runs."""
    key: StructureKey | None
    """The document's structure key when it was read."""
    config_error: str | None
    providers: list[ProblemProvider]
    kept: list[types.Diagnostic] | None
    """The structure diagnostics kept under :attr:`key` (``None``: compute),
    their lines shifted past the Enters typed since they were made."""
    make_index: Callable[[], convert.LineIndex] | None
    """Builds the line index of the buffer's text (``None`` when unneeded)."""
    enters: int = 0
    """The neutral Enters noted under :attr:`key` when the buffer was read."""


def read(
    ls: AgentDocLanguageServer, uri: str, providers: list[ProblemProvider] | None = None
) -> Reading | None:
    """Read what a run of ``uri`` needs (on the loop; ``providers`` default to
    :attr:`Hooks.problems`). The text is joined only when the structure
    diagnostics kept for the document are not exact any more (a provider
    reads the buffer's view)."""
    key = ls.structure_key(uri)
    _configs, config_error = ls.configs_for(uri)
    providers = list(ls.hooks.problems) if providers is None else providers
    kept = state_of(ls).structure.get(uri)
    found = None
    if (
        kept is not None
        and key is not None
        and kept[0] is key
        and kept[1:3]
        == (
            config_error,
            ls.encoding,
        )
    ):
        found = _shifted(kept[3], key.enters[kept[4] :])
        edited = key.lines
        if edited is None or any(
            d.range.start.line in edited or d.range.end.line in edited for d in found
        ):
            found = None  # a kept position lies on an edited line
    if found is not None and not providers:
        buffer = ls.buffers.head(uri)
        make_index = None
    else:
        buffer = ls.buffers.get(uri)
        make_index = None if buffer is None else ls.line_index_maker(uri, buffer.view)
    if buffer is None:
        return None
    enters = 0 if key is None else len(key.enters)
    return Reading(buffer, key, config_error, providers, found, make_index, enters)


def _shifted(
    found: list[types.Diagnostic], enters: list[int]
) -> list[types.Diagnostic]:
    """``found`` with each position's line moved past the neutral Enters
    ``enters`` (:func:`~agent_doc.document.neutral_edit.shifted_line`)."""
    if not enters:
        return found

    def moved(at: types.Position) -> types.Position:
        return types.Position(shifted_line(at.line, enters), at.character)

    return [
        attrs.evolve(d, range=types.Range(moved(d.range.start), moved(d.range.end)))
        for d in found
    ]


def check(
    ls: AgentDocLanguageServer, reading: Reading
) -> tuple[convert.LineIndex | None, list[types.Diagnostic], list[types.Diagnostic]]:
    """``(line index, structure diagnostics, all diagnostics)`` of the buffer
    read (runs in a worker thread: reads only ``reading`` and what the
    providers allow); the index is ``None`` when nothing needed it."""
    buffer, structure = reading.buffer, reading.kept
    index = reading.make_index() if reading.make_index else None
    if structure is None:
        assert index is not None  # read() makes one whenever it keeps nothing
        found = problems(buffer.text)
        if reading.config_error:
            found.insert(0, config_problem(reading.config_error))
        structure = [convert.diagnostic(index, p) for p in found]
    extra = [p for provider in reading.providers for p in provider(ls, buffer)]
    if not extra:
        return index, structure, list(structure)
    assert index is not None
    return index, structure, structure + [convert.diagnostic(index, p) for p in extra]


def settle(
    ls: AgentDocLanguageServer,
    uri: str,
    reading: Reading,
    result: tuple[
        convert.LineIndex | None, list[types.Diagnostic], list[types.Diagnostic]
    ],
) -> list[types.Diagnostic] | None:
    """Keep what the run found (on the loop); its diagnostics, or ``None``
    when the document changed meanwhile (the change scheduled a new run)."""
    index, structure, found = result
    if reading.key is not None and uri in ls.buffers:
        state_of(ls).structure[uri] = (
            reading.key,
            reading.config_error,
            ls.encoding,
            structure,
            reading.enters,
        )
    current = ls.buffers.version(uri)
    if current is None or current != reading.buffer.version:
        logger.debug("diagnostics of %s version %s: stale", uri, reading.buffer.version)
        return None
    if index is not None:
        ls.keep_index(uri, reading.buffer.version, index)
    return found


async def publish(ls: AgentDocLanguageServer, uri: str) -> None:
    """Check ``uri`` off the loop; publish unless it changed meanwhile."""
    reading = read(ls, uri)
    if reading is None:
        return
    result = await asyncio.to_thread(check, ls, reading)
    found = settle(ls, uri, reading, result)
    if found is not None:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=reading.buffer.uri,
                version=reading.buffer.version,
                diagnostics=found,
            )
        )


async def _run(ls: AgentDocLanguageServer, uri: str) -> None:
    """Publish ``uri``, once more if its debounce fired meanwhile."""
    runs = state_of(ls)
    try:
        with ls.reading(uri):  # at rest after it: the long text is let go
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
    runs.structure.pop(uri, None)
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
