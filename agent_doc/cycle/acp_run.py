"""``run`` with an ACP agent, from the command line (the editor has its own host).

The prompt is the one every backend sends (:mod:`agent_doc.cycle.turn`); the
answer comes back as ``agent_message_chunk`` updates and is written once, at the
end, through the one write path by :func:`agent_doc.cycle.run.run_cycle` — or,
for a shared room (``run --room``), streamed into the room as it comes
(:class:`~agent_doc.cycle.sides.AnswerStream`).

On the terminal the agent's tool calls and plan show on stderr, and its
permission requests are asked there (:mod:`agent_doc.cycle.acp_console`); its
file reads and writes stay inside the project (:class:`ConsoleHost`). Ctrl-C
(or SIGTERM, SIGHUP) cancels the turn (``session/cancel``, then the agent's
process group is stopped if it goes on): what the agent said so far is
written, marked as interrupted, and ``run`` exits 128 + the signal.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_doc.cycle.acp_client import AcpReply
from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.acp_console import Console
from agent_doc.cycle.acp_requests import PermissionChoice
from agent_doc.cycle.cancel import SignalLatch
from agent_doc.cycle.cancel import TurnCancelled
from agent_doc.cycle.cancel import signal_name
from agent_doc.cycle.cancel import signals_routed
from agent_doc.cycle.turn import with_resume
from agent_doc.errors import AgentError
from agent_doc.errors import ShareError
from agent_doc.store.atomic import atomic_write_text
from agent_doc.write.agent_write import AGENT_WRITE_LABEL
from agent_doc.write.agent_write import AgentView
from agent_doc.write.agent_write import merge_into_file
from agent_doc.write.agent_write import read_for_agent
from agent_doc.write.outcome import normalize_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.cycle.sides import AnswerStream
    from agent_doc.cycle.turn import PreparedTurn
    from agent_doc.store.config import AgentCommand
    from agent_doc.write.server_link import ServerHandle
    from agent_doc.write.server_link import ServerLink

INTERRUPTED_NOTE = "*(interrupted)*"
"""Appended to an answer whose turn was cancelled."""


def final_answer(reply: AcpReply, name: str) -> str:
    """The text to write for ``reply`` (marked when interrupted)."""
    text = reply.text.rstrip()
    if reply.interrupted:
        return f"{text}\n\n{INTERRUPTED_NOTE}\n" if text else f"{INTERRUPTED_NOTE}\n"
    if not text:
        raise AgentError(
            f"agent '{name}' returned an empty answer ({reply.stop_reason})"
        )
    return reply.text


def within(path: Path, root: Path) -> Path:
    """``path`` resolved, if it lies inside ``root`` (``ValueError`` otherwise)."""
    resolved = path.resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise ValueError(f"{path} is outside the project {root}")
    return resolved


class ConsoleHost:
    """Answers an ACP agent for ``agent-doc run`` (stderr, stdin, files)."""

    def __init__(
        self,
        name: str,
        agent: AgentCommand,
        root: Path,
        link: ServerLink | None,
        stream: AnswerStream | None = None,
    ) -> None:
        self.name = name
        self.stream = stream
        """Where the answer streams to (a shared room), if anywhere."""
        self.document: Path | None = None
        """The turn's document (read from the room while ``stream`` is set)."""
        self.console = Console(name, agent.permissions)
        """The person at the terminal (activity shown, questions asked)."""
        self.root = root
        self.link = link
        self.allow_terminals = True
        """The person ran the agent themselves: their shell, their trust."""
        self.view = AgentView()
        """What the agent saw of each file (the base of its writes)."""

    async def on_text(self, text: str) -> None:
        """Stream the answer so far into the room; locally nothing (the
        answer is written once, at the end)."""
        if self.stream is not None:
            await self.stream.show(text)

    async def on_activity(self, message: str) -> None:
        """Show the agent's plan and tool calls on stderr."""
        self.console.show_activity(message)

    async def ask_permission(
        self, title: str, choices: list[PermissionChoice]
    ) -> str | None:
        """Ask the person at the terminal (or answer by the agent's policy)."""
        return await self.console.ask_permission(title, choices)

    async def read_file(self, path: Path) -> str:
        """The live buffer when an editor has ``path`` open, else the file;
        the room's text for the document of a ``run --room``. An open buffer
        and the turn's document come in the core's form (``\\n``, no BOM)."""

        resolved = within(path, self.root)
        if self.stream is not None and resolved == self.document:
            return self.stream.current_text()
        handle = await self._owner(resolved)
        if handle is not None:
            return self.view.saw(resolved, normalize_text(handle.text))
        if resolved == self.document:
            text = await asyncio.to_thread(read_for_agent, resolved)
            return self.view.saw(resolved, text)
        return self.view.saw(resolved, resolved.read_text(encoding="utf-8"))

    async def write_file(self, path: Path, content: str) -> None:
        """Write ``path`` as an answer is written (inside the project only).

        A file open in an editor: one verified edit of its buffer, merged with
        what was typed since the agent read it (the editor's language server
        applies it); the turn's document: merged into the file under its lock,
        line endings and BOM kept (:mod:`agent_doc.write.agent_write`); any
        other file: written atomically. Never the document of a ``run
        --room``, whose text lives in the room. Returns only once the write
        landed; raises otherwise.
        """

        resolved = within(path, self.root)
        if self.stream is not None and resolved == self.document:
            raise ValueError(
                f"{path.name} is shared in a room: put the answer in your "
                "message; it is written into the room"
            )
        handle = await self._owner(resolved)
        base = self.view.base(resolved)
        if handle is not None and self.link is not None:
            if base is None:
                base = normalize_text(handle.text)
            await asyncio.to_thread(
                self.link.merge, handle, base, content, label=AGENT_WRITE_LABEL
            )
            if handle.others:
                await asyncio.to_thread(self.link.notify_stale, handle)
        elif resolved == self.document:
            await asyncio.to_thread(merge_into_file, resolved, base, content)
        else:
            resolved.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(resolved, content)
        self.view.saw(resolved, normalize_text(content))

    async def _owner(self, path: Path) -> ServerHandle | None:
        """The language server that has ``path`` open (``None``: none, or no
        link); raises when one may have it but did not answer."""
        if self.link is None:
            return None
        return await asyncio.to_thread(self.link.find_owner, path)


def run_acp_from_console(
    turn: PreparedTurn,
    name: str,
    agent: AgentCommand,
    *,
    link: ServerLink | None,
    timeout: float,
    stream: AnswerStream | None = None,
    full_prompt: Callable[[], str] | None = None,
) -> tuple[str, str, TurnCancelled | None, str, str | None]:
    """Run one ACP turn for ``agent-doc run``.

    ``full_prompt`` builds the whole-document prompt a new session gets when a
    resumed one is lost (default: the turn's own; the cost guard checks it).

    With ``stream`` (a shared room) the answer streams into it as it comes,
    and the final answer (marked when interrupted, with its ``resume`` patch)
    is written there before this returns (``stream.written``).

    Returns ``(answer, session_id, cancelled, prompt sent, why full)``; the
    prompt sent is the full form when the turn's session could not be resumed,
    and why is :attr:`~agent_doc.cycle.acp_client.AcpTurn.full_because`.
    SIGINT, SIGTERM or SIGHUP cancel the turn (``session/cancel``; the agent's
    process group is stopped if it does not end the turn within the grace
    period, at once on a second signal), and ``cancelled`` then says so; the
    answer so far is marked interrupted, to be written like any other.
    """
    host = ConsoleHost(name, agent, turn.root, link, stream)
    host.document = turn.path.resolve()
    host.view = AgentView(host.document, turn.text)
    acp_turn = AcpTurn(name, agent, host, turn.root)
    signals = SignalsCancel(acp_turn, host.console)
    prompt = (full_prompt or turn.full_prompt) if turn.mode == "resumed" else None
    with signals_routed(signals.on_signal):
        reply = asyncio.run(drive(acp_turn, turn, stream, timeout, prompt, signals))
    sent = acp_turn.sent_prompt or turn.prompt
    answer = final_answer(reply, name)
    why_full = acp_turn.full_because
    return answer, reply.session_id, signals.cancelled(reply), sent, why_full


async def drive(
    acp_turn: AcpTurn,
    turn: PreparedTurn,
    stream: AnswerStream | None,
    timeout: float,
    full_prompt: Callable[[], str] | None,
    signals: SignalsCancel,
) -> AcpReply:
    """The turn on the event loop: the agent's answer, streamed into the room
    (joined before the agent starts, left after its final answer) when there
    is one."""
    signals.attach()

    async def answer() -> AcpReply:
        return await acp_turn.run(
            turn.prompt, resume=turn.front.resume, timeout=timeout,
            full_prompt=full_prompt,
        )  # fmt: skip

    if stream is None:
        return await answer()
    async with stream:
        reply = await answer()
        final = final_answer(reply, acp_turn.name)
        try:
            await stream.finish(with_resume(final, reply.session_id, turn.front))
        except ShareError as exc:  # the caller keeps the answer
            stream.failure = exc
    return reply


class SignalsCancel:
    """SIGINT, SIGTERM and SIGHUP cancel an ACP turn (a second one: at once)."""

    def __init__(self, acp_turn: AcpTurn, console: Console) -> None:
        self.acp_turn = acp_turn
        self.console = console
        self.latch = SignalLatch()
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def attach(self) -> None:
        """The turn's loop runs: signals cancel on it (one that came before
        it ran cancels the turn at once)."""
        self._loops.append(asyncio.get_running_loop())
        if self.latch.first is not None:
            self.acp_turn.cancelled = True

    def on_signal(self, signum: int) -> None:
        """A signal came (on the main thread): cancel on the turn's loop."""
        hurry = not self.latch.note(signum)
        for loop in self._loops:
            loop.call_soon_threadsafe(self._cancel, hurry)

    def _cancel(self, hurry: bool) -> None:
        self.console.cancel()
        task = asyncio.get_running_loop().create_task(self.acp_turn.cancel(hurry=hurry))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancelled(self, reply: AcpReply) -> TurnCancelled | None:
        """What a signal did to the turn whose reply is ``reply`` (``None``:
        no signal, or the turn ended before it)."""
        first = self.latch.first
        if first is None or not reply.interrupted:
            return None
        return TurnCancelled(
            f"cancelled ({signal_name(first)}): stopped agent "
            f"'{self.acp_turn.name}'{_pid_note(self.acp_turn.agent_pid)}; what it "
            f"had answered is in the document, marked interrupted",
            first,
        )


def _pid_note(pid: int | None) -> str:
    return "" if pid is None else f" (pid {pid})"
