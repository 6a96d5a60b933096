"""Agent state in the editor: ``agentDoc/status`` notifications and a status lens.

While session documents (frontmatter ``agent_doc_session``) are open, a
background task polls their agents every ``agentDoc.statusIntervalMs``
(:func:`agent_doc.editor.agent_status.poll`, in a worker thread: it runs tmux) and
sends the custom notification ``agentDoc/status`` ``{uri, state, pane, agent,
detail, exitCode}`` whenever a document's status changes. ``textDocument/codeLens``
shows it at line 0 (``● claude — running in %4``, click: ``agentDoc.focus``);
``workspace/codeLens/refresh`` is sent on changes when the client supports it.
The task ends when the last session document is closed.

This module also owns the ``textDocument/codeLens`` handler: other features add
lenses with :func:`add_lens_provider` and watch polled statuses with
:func:`add_status_listener` (pygls allows one handler per method).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc.editor import agent_status as editor_status
from agent_doc.editor.agent_status import EditorStatus
from agent_doc.editor.agent_status import OpenDoc
from agent_doc.errors import AgentDocError
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

STATUS = "agentDoc/status"
"""Custom notification carrying one document's agent status."""
FOCUS = "agentDoc.focus"
"""Command bound to the status lens."""

LensProvider = Callable[[AgentDocLanguageServer, types.CodeLensParams], Any]
"""``provider(ls, params)`` → lenses (a list, ``None`` or an awaitable of one)."""
StatusListener = Callable[[AgentDocLanguageServer, str, EditorStatus], Any]
"""``listener(ls, uri, status)`` after every poll; may be a coroutine function."""


@dataclass
class AgentStatusState:
    """Per-server state of this feature."""

    task: asyncio.Task[None] | None = None
    """The polling task while session documents are open."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    """Set to poll at once (a document was opened)."""
    stores: editor_status.Stores = field(default_factory=dict)
    """Observations of the agent state inference, per project root."""
    shown: dict[str, EditorStatus] = field(default_factory=dict)
    """URI → last polled status."""
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)
    """URI → last ``agentDoc/status`` payload sent."""
    overrides: dict[str, EditorStatus] = field(default_factory=dict)
    """URI → the status of an agent answering in the server (ACP), shown
    instead of the polled one while it answers."""
    failure: str | None = None
    """Last polling error (logged once until it changes)."""
    lens_providers: list[LensProvider] = field(default_factory=list)
    """Code lens providers (this feature's first)."""
    listeners: list[StatusListener] = field(default_factory=list)
    """Called with every polled status."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, AgentStatusState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> AgentStatusState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, AgentStatusState())


def add_lens_provider(server: AgentDocLanguageServer, provider: LensProvider) -> None:
    """Add lenses of another feature to ``textDocument/codeLens``."""
    state_of(server).lens_providers.append(provider)


def add_status_listener(
    server: AgentDocLanguageServer, listener: StatusListener
) -> None:
    """Call ``listener(ls, uri, status)`` for each open document after each poll."""
    state_of(server).listeners.append(listener)


def session_docs(ls: AgentDocLanguageServer) -> dict[str, OpenDoc]:
    """URI → :class:`OpenDoc` of every open buffer that has a session id."""
    docs: dict[str, OpenDoc] = {}
    for uri in ls.buffers:
        buffer = ls.buffers.head(uri)  # the frontmatter is all it reads
        if buffer is not None and buffer.path is not None:
            doc = editor_status.open_doc(buffer.path, buffer.text)
            if doc is not None:
                docs[buffer.uri] = doc
    return docs


def refresh_lenses(ls: AgentDocLanguageServer) -> None:
    """Send ``workspace/codeLens/refresh`` if the client supports it."""
    caps = ls.client_capabilities
    if get_capability(caps, "workspace.code_lens.refresh_support", False):
        ls.workspace_code_lens_refresh(None)


def status_lens(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """The status lens of the document at line 0 (none before the first poll)."""
    uri = params.text_document.uri
    status = state_of(ls).shown.get(uri)
    if status is None or not ls.options.code_lens:
        return []
    start = types.Position(line=0, character=0)
    command = FOCUS if status.pane else ""
    return [
        types.CodeLens(
            range=types.Range(start=start, end=start),
            command=types.Command(
                title=status.lens_title(), command=command, arguments=[{"uri": uri}]
            ),
        )
    ]


async def publish(
    ls: AgentDocLanguageServer,
    docs: dict[str, OpenDoc],
    statuses: dict[Any, EditorStatus],
) -> None:
    """Notify changed statuses, refresh lenses, run the status listeners."""
    state = state_of(ls)
    changed = False
    for uri, doc in docs.items():
        status = state.overrides.get(uri) or statuses.get(doc.path)
        if status is None or uri not in ls.buffers:
            continue
        changed = _show(ls, uri, status) or changed
    if changed and ls.options.code_lens:
        refresh_lenses(ls)
    for uri, doc in docs.items():
        if doc.path in statuses and uri in ls.buffers:
            await ls.emit(state.listeners, uri, statuses[doc.path])


def _show(ls: AgentDocLanguageServer, uri: str, status: EditorStatus) -> bool:
    """Remember ``status`` for the lens; notify it if it changed (→ changed)."""
    state = state_of(ls)
    state.shown[uri] = status
    payload = {"uri": uri, **status.payload()}
    if payload == state.sent.get(uri):
        return False
    state.sent[uri] = payload
    ls.protocol.notify(STATUS, payload)
    return True


def override(ls: AgentDocLanguageServer, uri: str, status: EditorStatus | None) -> None:
    """Show ``status`` for ``uri`` now and until cleared (``None``: poll again)."""
    state = state_of(ls)
    if status is None:
        state.overrides.pop(uri, None)
        wake_polling(ls)
        return
    state.overrides[uri] = status
    if uri in ls.buffers and _show(ls, uri, status) and ls.options.code_lens:
        refresh_lenses(ls)


async def poll_once(ls: AgentDocLanguageServer, docs: dict[str, OpenDoc]) -> None:
    """Poll the agents of ``docs`` (in a thread) and publish the result."""
    state = state_of(ls)
    try:
        statuses = await asyncio.to_thread(
            editor_status.poll, list(docs.values()), state.stores
        )
    except AgentDocError as exc:
        if str(exc) != state.failure:
            logger.warning("agent status: %s", exc)
        state.failure = str(exc)
        return
    state.failure = None
    await publish(ls, docs, statuses)


async def run_poller(ls: AgentDocLanguageServer) -> None:
    """Poll while session documents are open and polling is enabled."""
    state = state_of(ls)
    while (docs := session_docs(ls)) and ls.options.status_interval_ms > 0:
        try:
            await poll_once(ls, docs)
        except Exception:  # keep polling; the next round may succeed
            logger.exception("agent status poll failed")
        state.wake.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(
                state.wake.wait(), ls.options.status_interval_ms / 1000
            )


def start_polling(ls: AgentDocLanguageServer, *_: Any) -> None:
    """Start the poller if session documents are open and it is not running."""
    state = state_of(ls)
    if state.task is not None and not state.task.done():
        return
    if ls.options.status_interval_ms > 0 and session_docs(ls):
        state.task = asyncio.get_running_loop().create_task(run_poller(ls))


def wake_polling(ls: AgentDocLanguageServer, *_: Any) -> None:
    """Poll now: start the poller, or wake a running one."""
    state = state_of(ls)
    if state.task is not None and not state.task.done():
        state.wake.set()
    else:
        start_polling(ls)


def on_change(ls: AgentDocLanguageServer, uri: str) -> None:
    """Start polling when an edit turns a buffer into a session document."""
    state = state_of(ls)
    if state.task is not None and not state.task.done():
        return
    buffer = ls.buffers.head(uri)
    if buffer is None or buffer.path is None:
        return
    if editor_status.open_doc(buffer.path, buffer.text) is not None:
        start_polling(ls)


def forget(ls: AgentDocLanguageServer, uri: str) -> None:
    """Drop the status of a closed document."""
    state = state_of(ls)
    state.shown.pop(uri, None)
    state.sent.pop(uri, None)
    state.overrides.pop(uri, None)


def stop(ls: AgentDocLanguageServer) -> None:
    """Cancel the poller (``shutdown``)."""
    task = state_of(ls).task
    if task is not None:
        task.cancel()


def register(server: AgentDocLanguageServer) -> None:
    """Register the status poller hooks and the ``textDocument/codeLens`` handler."""
    state = state_of(server)
    state.lens_providers.insert(0, status_lens)
    # A code lens handler registered by an earlier feature module becomes one
    # more provider (pygls allows one handler per method).
    features = server.protocol.fm.features
    earlier = features.pop(types.TEXT_DOCUMENT_CODE_LENS, None)
    options = server.protocol.fm.feature_options.pop(
        types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False)
    )
    if earlier is not None:
        state.lens_providers.insert(0, lambda _ls, params: earlier(params))
    server.hooks.initialized.append(wake_polling)
    server.hooks.options_changed.append(wake_polling)
    server.hooks.did_open.append(wake_polling)
    server.hooks.did_change.append(on_change)
    server.hooks.did_close.append(forget)
    server.hooks.shutdown.append(stop)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, options)
    async def code_lens(
        ls: AgentDocLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        lenses: list[types.CodeLens] = []
        for provider in list(state_of(ls).lens_providers):
            result = provider(ls, params)
            lenses.extend(
                (await result if inspect.isawaitable(result) else result) or []
            )
        return lenses
