"""Apply one planned edit to a live editor buffer, and make sure it landed.

Editors disagree on stale edits: VS Code and eglot reject a ``TextDocumentEdit``
pinned to an old version (``applied=false``), while Neovim answers
``applied=true`` and silently skips it. So an answer is never trusted: after the
client answers, the server's own copy of the buffer (fed by the client's
``didChange``) must pass through the expected text (see :func:`_confirmed`). If
it does not, the newest buffer text is re-planned (same baseline, same
``content_ours``) and the edit is sent again after the editor's next
``didChange`` (or a short quiet interval), until ``writeTimeoutMs`` is spent.

A write into a buffer the person is typing in first waits for their pause
(:mod:`agent_doc.write.pause`): no ``didChange`` for the document's typing
setting, at most ``writePauseBudgetMs``; after that it lands anyway. The
edits are minimal (one ``TextEdit`` per changed region), so even then the
person's text is never covered by an edit.

To see every intermediate state (an editor may coalesce our edit and the user's
next keystroke into one ``didChange``) every single change the workspace
applies is observed through :class:`ChangeTracker` (a
:class:`~agent_doc_lsp.fast_document.FastWorkspace` listener).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc.errors import ServerTimeout
from agent_doc.write.live import LivePlan
from agent_doc.write.pause import pause_policy
from agent_doc.write.pause import wait_before_landing
from agent_doc_lsp import convert
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

RETRY_QUIET_S = 0.5
"""A rejected edit is re-planned after the next ``didChange``, or this long."""
PROGRESS_AFTER_S = 0.2
"""Writes slower than this show ``$/progress`` (when the client supports it)."""


@dataclass(eq=False)
class _Watch:
    """Waits for one buffer to pass through an expected text."""

    expected: str
    matched: bool = False
    notifications: int = 0
    event: asyncio.Event = field(default_factory=asyncio.Event)


class ChangeTracker:
    """Observes every content change pygls applies to an open document.

    It also tells the person's changes from the server's own: a ``didChange``
    whose last change produced the text a write was waiting for is ours, and
    does not count as typing (see :meth:`notified`).
    """

    def __init__(self) -> None:
        self._watches: dict[str, list[_Watch]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._own: dict[str, bool] = {}
        self._before: dict[str, float | None] = {}
        self._arrivals: dict[str, asyncio.Event] = {}
        self._server: AgentDocLanguageServer | None = None

    def lock(self, uri: str) -> asyncio.Lock:
        """The lock serialising live writes to one document."""
        return self._locks.setdefault(uri, asyncio.Lock())

    def install(self, ls: AgentDocLanguageServer) -> None:
        """Listen to every single content change (once per workspace)."""
        workspace = ls.workspace
        if not isinstance(workspace, FastWorkspace):
            raise TypeError("the server's workspace is not a FastWorkspace")
        listeners = workspace.change_listeners
        if any(getattr(f, "__self__", None) is self for f in listeners):
            return
        self._server = ls
        listeners.append(self.changed)

    def changed(
        self, ident: types.VersionedTextDocumentIdentifier, doc: FastTextDocument
    ) -> None:
        """One content change of ``ident`` was applied; ``doc`` holds the result.

        Only a document a write is waiting for is compared (by length first,
        then chunk by chunk): typing costs nothing here otherwise.
        """
        uri = ident.uri
        ls = self._server
        if ls is not None:
            self._before.setdefault(uri, ls.last_edit.get(uri))
        own = False
        for watch in self._watches.get(uri, ()):
            if doc.text_equals(watch.expected):
                own = True
                if not watch.matched:
                    watch.matched = True
                    watch.event.set()
        self._own[uri] = own

    def notified(self, ls: AgentDocLanguageServer, uri: str) -> None:
        """Record that a whole ``didChange`` notification was processed.

        When its last change was our own edit, the edit time stamped for it
        is taken back: the person did not type.
        """
        before = self._before.pop(uri, None)
        if self._own.pop(uri, False):
            if before is None:
                ls.last_edit.pop(uri, None)
            else:
                ls.last_edit[uri] = before
        for watch in self._watches.get(uri, []):
            watch.notifications += 1
            watch.event.set()
        arrival = self._arrivals.pop(uri, None)
        if arrival is not None:
            arrival.set()

    async def next_change(self, uri: str, timeout: float) -> bool:
        """Wait for the next ``didChange`` of ``uri``; ``False`` after ``timeout``."""
        arrival = self._arrivals.setdefault(uri, asyncio.Event())
        try:
            await asyncio.wait_for(arrival.wait(), max(timeout, 0.0))
        except asyncio.TimeoutError:
            return False
        return True

    @contextlib.contextmanager
    def watch(self, uri: str, expected: str) -> Any:
        """Watch ``uri`` for ``expected`` while the block runs."""
        item = _Watch(expected)
        self._watches.setdefault(uri, []).append(item)
        try:
            yield item
        finally:
            self._watches[uri].remove(item)
            if not self._watches[uri]:
                del self._watches[uri]


async def _settled(watch: _Watch, timeout: float) -> bool:
    """Wait until ``watch`` matched or one more ``didChange`` arrived."""
    seen = watch.notifications
    deadline = time.monotonic() + timeout
    while not watch.matched and watch.notifications == seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        watch.event.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(watch.event.wait(), remaining)
    return watch.matched


async def _confirmed(
    ls: AgentDocLanguageServer,
    uri: str,
    version: int | None,
    watch: _Watch,
    deadline: float,
) -> bool:
    """Decide whether an edit the client says it applied is in the buffer.

    The buffer passed through the expected text: yes. The client reported a
    newer version before answering: it skipped the stale edit — or it applied
    ours and reports it piecewise (Neovim sends a multi-edit workspace edit in
    several ``didChange``s, the last after its answer), so the next one, within
    :data:`RETRY_QUIET_S`, decides. Otherwise the next ``didChange`` tells
    (editors debounce them): it carries our edit, or the user's edits that
    made ours stale.
    """
    if watch.matched:
        return True
    left = max(deadline - time.monotonic(), 0)
    if ls.workspace.get_text_document(uri).version != version:
        return await _settled(watch, min(RETRY_QUIET_S, left))
    return await _settled(watch, left)


def _edit_params(
    ls: AgentDocLanguageServer,
    uri: str,
    version: int | None,
    plan: LivePlan,
    label: str,
) -> types.ApplyWorkspaceEditParams:
    index = convert.LineIndex(plan.live_text, ls.encoding)
    edits = [convert.edit(index, c.start, c.end, c.new_text) for c in plan.changes]
    caps = ls.client_capabilities
    # Neovim handles versioned documentChanges but only advertises
    # resourceOperations (which exist only inside documentChanges).
    pinned = get_capability(
        caps, "workspace.workspace_edit.document_changes", False
    ) or bool(
        get_capability(caps, "workspace.workspace_edit.resource_operations", None)
    )
    return types.ApplyWorkspaceEditParams(
        edit=convert.workspace_edit(uri, version, edits, document_changes=pinned),
        label=label,
    )


@dataclass(frozen=True, slots=True)
class _Budget:
    """The clock of one live write (``time.monotonic`` values)."""

    started: float
    deadline: float
    pause_budget_s: float


async def apply_live(
    ls: AgentDocLanguageServer,
    tracker: ChangeTracker,
    uri: str,
    plan_for: Callable[[str], LivePlan],
    *,
    label: str,
    timeout_ms: int | None = None,
    pause: bool = True,
) -> LivePlan:
    """Bring the buffer of ``uri`` to ``plan_for(buffer_text).merged``.

    The edit waits for the person's pause (:mod:`agent_doc.write.pause`;
    not with ``pause=False``: the person asked for it, as with undo) and
    ``plan_for`` is called with the newest buffer text on every attempt.
    Attempts follow the editor's ``didChange`` notifications until the edit
    is confirmed. Raises :class:`ServerTimeout` when it did not land within
    ``writeTimeoutMs`` (or the caller's shorter ``timeout_ms``).
    """
    total_ms = ls.options.write_timeout_ms
    if timeout_ms is not None:
        total_ms = min(total_ms, timeout_ms)
    started = time.monotonic()
    budget = _Budget(
        started, started + total_ms / 1000, ls.options.write_pause_budget_ms / 1000
    )
    lock = tracker.lock(uri)
    try:
        await asyncio.wait_for(lock.acquire(), total_ms / 1000)
    except asyncio.TimeoutError:
        raise ServerTimeout(f"{label}: another write is still in progress") from None
    try:
        async with _progress(ls, label):
            return await _attempts(ls, tracker, uri, plan_for, label, budget, pause)
    finally:
        lock.release()


async def _await_pause(ls: AgentDocLanguageServer, uri: str, budget: _Budget) -> None:
    """Wait until the person paused in ``uri`` (or the pause budget is spent)."""
    text = ls.workspace.get_text_document(uri).source
    policy = pause_policy(
        text,
        started=budget.started,
        pause_budget_s=budget.pause_budget_s,
        deadline=budget.deadline,
    )
    while True:
        last = ls.last_edit.get(uri)
        # last_edit is wall-clock time: express it on the monotonic clock
        last_change = None if last is None else time.monotonic() - (time.time() - last)
        wait = wait_before_landing(
            policy, now=time.monotonic(), last_change=last_change
        )
        if wait <= 0:
            return
        await asyncio.sleep(wait)


async def _attempts(
    ls: AgentDocLanguageServer,
    tracker: ChangeTracker,
    uri: str,
    plan_for: Callable[[str], LivePlan],
    label: str,
    budget: _Budget,
    pause: bool = True,
) -> LivePlan:
    """The pause → apply → verify → re-plan loop of :func:`apply_live`."""
    attempt = 0
    while time.monotonic() < budget.deadline:
        if uri not in ls.buffers:  # pygls keys documents by the unquoted URI
            raise ServerTimeout(f"{label}: the document was closed in the editor")
        if pause:
            await _await_pause(ls, uri, budget)
        if uri not in ls.buffers:
            continue
        doc = ls.workspace.get_text_document(uri)
        version, text = doc.version, doc.source  # before any await
        plan = plan_for(text)
        if not plan.changed:
            return plan
        attempt += 1
        with tracker.watch(uri, plan.merged) as watch:
            params = _edit_params(ls, uri, version, plan, label)
            remaining = budget.deadline - time.monotonic()
            try:
                result = await asyncio.wait_for(
                    ls.workspace_apply_edit_async(params), max(remaining, 0.001)
                )
            except asyncio.TimeoutError:
                break
            except Exception as exc:  # an error answer: like a rejection
                result = types.ApplyWorkspaceEditResult(False, str(exc))
            if result.applied:
                if await _confirmed(ls, uri, version, watch, budget.deadline):
                    return plan
                reason = "the buffer does not hold the edit"
            else:
                reason = result.failure_reason or "client rejected the edit"
                if _version_of(ls, uri) == version:
                    # the editor is ahead of us: its next didChange tells what
                    # it has (eglot sends it late; our Emacs glue flushes it)
                    await tracker.next_change(uri, _retry_wait(budget))
        logger.info("%s: attempt %d on version %s: %s", label, attempt, version, reason)
    raise ServerTimeout(f"{label}: the editor did not apply the edit in time")


def _version_of(ls: AgentDocLanguageServer, uri: str) -> int | None:
    """The server's current version of ``uri`` (``None`` once closed)."""
    if uri not in ls.workspace.text_documents:
        return None
    return ls.workspace.get_text_document(uri).version


def _retry_wait(budget: _Budget) -> float:
    """How long a rejected attempt waits for the editor's next ``didChange``."""
    return max(min(RETRY_QUIET_S, budget.deadline - time.monotonic()), 0.0)


@contextlib.asynccontextmanager
async def _progress(ls: AgentDocLanguageServer, title: str) -> AsyncIterator[None]:
    """Show work-done progress if the block runs longer than PROGRESS_AFTER_S."""
    if not get_capability(ls.client_capabilities, "window.work_done_progress", False):
        yield
        return
    token = f"agent-doc-{uuid.uuid4().hex[:8]}"
    started = asyncio.Event()

    async def begin() -> None:
        await asyncio.sleep(PROGRESS_AFTER_S)
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=False)
        )
        started.set()

    task = asyncio.create_task(begin())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        if started.is_set():
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
