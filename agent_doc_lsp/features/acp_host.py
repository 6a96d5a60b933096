"""The editor's answers to an ACP agent: streaming, progress, questions, files.

:class:`EditorHost` is the :class:`~agent_doc.cycle.acp_client.AcpHost` of
``agentDoc.runAgent``:

- **streaming**: the answer so far goes into the open buffer at most every
  :data:`MIN_INTERVAL_S` (≤ 5 edits/s), each one verified, versioned, minimal
  edit (:mod:`agent_doc.write.stream` plans it, :func:`apply_live` lands it);
- **progress**: plan and tool-call updates are ``$/progress`` reports;
- **permissions**: ``session/request_permission`` becomes
  ``window/showMessageRequest`` with the agent's options as actions (a client
  without message actions gets one ``Answer: <option>`` code lens per option,
  as for tmux prompts); a dismissed question or a stopped turn answers
  ``cancelled``;
- **files**: ``fs/read_text_file`` of an open document returns the live buffer,
  ``fs/write_text_file`` to one becomes one verified, minimal workspace edit
  merged with what the person typed since the agent read it (the seam answers
  take, :mod:`agent_doc.write.agent_write`); the turn's document when closed
  is merged into the file under its lock; other files only inside the
  workspace folders. Terminals only in a trusted workspace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc.cycle.acp_requests import PermissionChoice
from agent_doc.editor.agent_status import EditorStatus
from agent_doc.errors import AgentDocError
from agent_doc.errors import ServerTimeout
from agent_doc.tmux.agent_state import NEEDS_INPUT
from agent_doc.tmux.agent_state import RUNNING
from agent_doc.write.agent_write import AGENT_WRITE_LABEL
from agent_doc.write.agent_write import AgentView
from agent_doc.write.outcome import normalize_text
from agent_doc.write.stream import StreamedAnswer
from agent_doc_lsp import convert
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features import writes
from agent_doc_lsp.features.agent_status import refresh_lenses
from agent_doc_lsp.features.prompts import supports_actions
from agent_doc_lsp.live_edit import apply_live
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

MIN_INTERVAL_S = 0.2
"""Least time between two streamed edits of one buffer (≤ 5 edits/s)."""
STALE_WAIT_S = 2.0
"""After a refused streamed edit, wait this long at most for the next didChange."""
STREAM_LABEL = "agent-doc stream"
"""Label prefix of every streamed edit: ``agent-doc stream <stream id>``."""
ANSWER_LANDED = "agentDoc/answerLanded"
"""Notification: the whole answer is in the buffer (``EditorHost.announce_landed``)."""


def answering(name: str, question: str | None = None) -> EditorStatus:
    """The ``agentDoc/status`` of the ACP agent ``name`` answering (or asking)."""
    if question is not None:
        return EditorStatus(NEEDS_INPUT, None, name, f"permission: {question}")
    return EditorStatus(RUNNING, None, name, "answering over ACP")


@dataclass
class Question:
    """A permission question waiting for an ``Answer:`` lens."""

    title: str
    choices: list[PermissionChoice]
    answer: asyncio.Future[str]


class EditorHost:
    """Answers one ACP turn from the editor (see the module docstring)."""

    def __init__(
        self,
        ls: AgentDocLanguageServer,
        uri: str,
        stream: StreamedAnswer | None,
        *,
        title: str,
        roots: list[Path],
        document: Path | None = None,
        prompt_text: str | None = None,
    ) -> None:
        self.ls = ls
        self.document = document.resolve() if document is not None else None
        """The turn's session document."""
        self.view = AgentView(self.document, prompt_text)
        """What the agent saw of each file (the base of its writes)."""
        self.uri = uri
        self.stream = stream
        self.roots = [r.resolve() for r in roots]
        self.allow_terminals = ls.options.trust_workspace
        self.title = title
        self.edits = 0
        """Streamed edits that landed."""
        self.stream_id = uuid.uuid4().hex[:12]
        """Names this answer's edits (their label) and its ``answerLanded``."""
        self.cancelled = asyncio.Event()
        self._latest = ""
        self._dirty = asyncio.Event()
        self._stopping = asyncio.Event()
        self._changed = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._last_edit = 0.0
        """Loop time of the last streamed edit (paces the final one)."""
        self._token: str | None = None
        self.question: Question | None = None
        """The permission question offered as lenses (clients without actions)."""

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Begin ``$/progress`` and the streaming flusher."""
        if get_capability(
            self.ls.client_capabilities, "window.work_done_progress", False
        ):
            self._token = f"agent-doc-acp-{uuid.uuid4().hex[:8]}"
            with contextlib.suppress(Exception):
                await self.ls.work_done_progress.create_async(self._token)
                self.ls.work_done_progress.begin(
                    self._token, types.WorkDoneProgressBegin(title=self.title)
                )
        if self.stream is not None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush_loop())

    async def stop(self, message: str) -> None:
        """Stop streaming (the in-flight edit finishes) and end the progress."""
        self._stopping.set()
        self._dirty.set()
        if self._flusher is not None:
            await self._flusher
        if self._token is not None:
            self.ls.work_done_progress.end(
                self._token, types.WorkDoneProgressEnd(message=message)
            )

    def buffer_changed(self) -> None:
        """The editor sent a ``didChange`` for the document."""
        self._changed.set()

    # -- AcpHost -------------------------------------------------------------

    async def on_text(self, text: str) -> None:
        """Remember the answer so far; the flusher shows it."""
        self._latest = text
        self._dirty.set()

    async def on_activity(self, message: str) -> None:
        """Report the agent's plan or tool call as ``$/progress``."""
        logger.info("%s: %s", self.title, message)
        if self._token is not None:
            self.ls.work_done_progress.report(
                self._token, types.WorkDoneProgressReport(message=message)
            )

    async def ask_permission(
        self, title: str, choices: list[PermissionChoice]
    ) -> str | None:
        """Ask with ``window/showMessageRequest`` (else ``Answer:`` lenses).

        ``None`` when dismissed or when the turn is stopped first.
        """
        if self.cancelled.is_set():
            return None
        agent_status.override(self.ls, self.uri, answering(self.title, title))
        try:
            return await self._ask(title, choices)
        finally:
            agent_status.override(self.ls, self.uri, answering(self.title))

    async def _ask(self, title: str, choices: list[PermissionChoice]) -> str | None:
        if not supports_actions(self.ls):
            return await self._ask_with_lenses(title, choices)
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"{self.title} asks permission: {title}",
            actions=[types.MessageActionItem(title=c.name) for c in choices],
        )
        request = asyncio.ensure_future(
            self.ls.window_show_message_request_async(params)
        )
        picked = await self._until_cancelled(request)
        return next(
            (c.option_id for c in choices if picked and c.name == picked.title), None
        )

    async def _ask_with_lenses(
        self, title: str, choices: list[PermissionChoice]
    ) -> str | None:
        """Offer the options as ``Answer:`` code lenses until one is run."""
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.question = Question(title, choices, answer)
        refresh_lenses(self.ls)
        try:
            result: str | None = await self._until_cancelled(answer)
            return result
        finally:
            self.question = None
            refresh_lenses(self.ls)

    async def _until_cancelled(self, future: asyncio.Future[Any]) -> Any:
        """The result of ``future``, or ``None`` once the turn is stopped."""
        cancelled = asyncio.ensure_future(self.cancelled.wait())
        await asyncio.wait({future, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        cancelled.cancel()
        if not future.done() or future.exception() is not None:
            future.cancel()
            return None
        return future.result()

    async def read_file(self, path: Path) -> str:
        """The live buffer of an open document, else the file (workspace only);
        an open buffer and the turn's document in the core's form (``\\n``)."""
        from agent_doc.write.agent_write import read_for_agent

        buffer = self.ls.buffers.by_path(path)
        if buffer is not None:
            return self.view.saw(path, normalize_text(buffer.text))
        target = self._inside(path)
        if target == self.document:
            return self.view.saw(
                target, await asyncio.to_thread(read_for_agent, target)
            )
        return self.view.saw(target, target.read_text(encoding="utf-8"))

    async def write_file(self, path: Path, content: str) -> None:
        """Write ``path`` as an answer is written (workspace only).

        An open document: one verified, minimal edit of its buffer, merged
        with what the person typed since the agent read it; the turn's
        document when it is not open: merged into the file under its lock,
        line endings and BOM kept; any other file: an atomic write. Returns
        only once the write landed (raises otherwise).
        """
        from agent_doc.store.atomic import atomic_write_text
        from agent_doc.write.agent_write import buffer_planner
        from agent_doc.write.agent_write import merge_into_file

        buffer = self.ls.buffers.by_path(path)
        base = self.view.base(path)
        if buffer is not None:
            await apply_live(
                self.ls,
                writes.state_of(self.ls).tracker,
                buffer.uri,
                buffer_planner(base, content),
                label=AGENT_WRITE_LABEL,
            )
        else:
            target = self._inside(path)
            if target == self.document:
                await asyncio.to_thread(merge_into_file, target, base, content)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(target, content)
        self.view.saw(path, normalize_text(content))

    def _inside(self, path: Path) -> Path:
        resolved = path.resolve()
        if not any(resolved == r or r in resolved.parents for r in self.roots):
            raise ValueError(f"{path} is outside the workspace")
        return resolved

    # -- streaming -----------------------------------------------------------

    async def push(self, answer: str) -> None:
        """Bring the buffer to the answer so far (one verified edit)."""
        stream = self.stream
        assert stream is not None
        await self._land(stream.target(answer))

    def final_target(self, answer: str, session_id: str | None) -> str:
        """``content_ours`` of the whole answer with ``resume: session_id``."""
        from agent_doc.write.stream import with_resume_field

        stream = self.stream
        assert stream is not None
        return with_resume_field(stream.target(answer, final=True), session_id)

    async def push_final(self, target: str) -> None:
        """Land the final ``target`` (:meth:`final_target`), keeping the pace."""
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, self._last_edit + MIN_INTERVAL_S - loop.time()))
        await self._land(target)

    async def _land(self, target: str) -> None:
        stream = self.stream
        assert stream is not None
        if target == stream.shown:
            return
        await apply_live(
            self.ls,
            writes.state_of(self.ls).tracker,
            self.uri,
            lambda live: stream.plan(live, target),
            label=f"{STREAM_LABEL} {self.stream_id}",
        )
        stream.landed(target)
        self.edits += 1
        self._last_edit = asyncio.get_running_loop().time()

    def announce_landed(self, content_ours: str) -> None:
        """Send ``agentDoc/answerLanded``: the answer is whole in the buffer.

        Its ``withoutAnswer`` edits turn the buffer at ``version`` into the
        document without the answer (the person's typing kept). A client
        uses them to make the answer one undo step: back to the text before
        the first streamed edit, then the person's typing, then the answer.
        """
        stream = self.stream
        if stream is None or self.uri not in self.ls.workspace.text_documents:
            return
        document = self.ls.workspace.get_text_document(self.uri)
        plan = stream.plan_removal(document.source, content_ours)
        index = convert.LineIndex(plan.live_text, self.ls.encoding)
        edits = [convert.edit(index, c.start, c.end, c.new_text) for c in plan.changes]
        params = {
            "uri": self.uri,
            "version": document.version,
            "stream": self.stream_id,
            "withoutAnswer": [convert.text_edit_json(e) for e in edits],
        }
        self.ls.protocol.notify(ANSWER_LANDED, params)

    async def _flush_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            if self._stopping.is_set():
                return
            self._changed.clear()
            try:
                await self.push(self._latest)
            except (AgentDocError, ServerTimeout) as exc:
                # The editor holds a version we have not seen (eglot sends
                # didChange only when idle): wait for it instead of retrying.
                logger.info("%s: streamed edit deferred: %s", self.title, exc)
                await self._quiet(self._changed, STALE_WAIT_S)
            pause = MIN_INTERVAL_S - (loop.time() - self._last_edit)
            if pause > 0:  # measured from the last edit that landed
                await self._quiet(self._stopping, pause)

    async def _quiet(self, event: asyncio.Event, seconds: float) -> None:
        """Wait until ``event`` is set, the turn stops, or ``seconds`` pass."""
        waits = {asyncio.ensure_future(event.wait())}
        waits.add(asyncio.ensure_future(self._stopping.wait()))
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        for task in waits:
            task.cancel()
