"""An ACP agent kept running between turns (the language server keeps one per document).

Starting an agent costs seconds (its runtime, ``initialize``, ``session/new``
or ``session/load`` replaying the history); between two turns of one document
nothing changes that needs a new process. :class:`LiveAgent` owns the process,
its connection and its session; :meth:`agent_doc.cycle.acp_client.AcpTurn.run`
uses it when given one: it starts the agent on the first turn, skips
``initialize`` afterwards and reuses the session while the document's
``resume`` still names it. A turn that fails or times out closes it (the next
turn starts afresh), and its owner closes it when the document is closed, the
server shuts down or it sat idle for :data:`IDLE_TIMEOUT_S`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any
from typing import cast

from agent_doc.cycle.acp_socket import SocketLink
from agent_doc.cycle.acp_socket import connect_socket
from agent_doc.cycle.cancel import GRACE_S
from agent_doc.cycle.cancel import live_groups
from agent_doc.cycle.cancel import signal_name
from agent_doc.cycle.cancel import stop_group_async
from agent_doc.errors import AgentError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from agent_doc.cycle.acp_requests import AcpClient
    from agent_doc.store.config import AgentCommand

logger = logging.getLogger(__name__)

IDLE_TIMEOUT_S = 15 * 60
"""An agent unused this long is stopped (its session stays loadable)."""
EOF_GRACE_S = 2.0
"""Seconds a stopped agent has to exit on its own after its stdin closes."""
STDIO_LIMIT = 50 * 1024 * 1024
"""Largest JSON-RPC line accepted from the agent (the SDK's own default)."""
STDERR_LINES = 20
"""Lines of the agent's stderr kept to explain its exit (``ssh``'s errors)."""
STDERR_LINE_CHARS = 2000
"""The end of a stderr line kept (bytes)."""
STDERR_WAIT_S = 1.0
"""Seconds an exit waits for the rest of the agent's stderr."""


class LiveAgent:
    """One ACP agent process, its connection and its session (module docstring)."""

    def __init__(
        self, name: str, agent: AgentCommand, cwd: Path, *, allow_terminals: bool
    ) -> None:
        self.name = name
        self.agent = agent
        self.cwd = cwd
        self.allow_terminals = allow_terminals
        self.conn: ClientSideConnection | None = None
        self.client: AcpClient | None = None
        self.init: Any = None
        """The agent's ``initialize`` response (``None`` until started)."""
        self.session_id: str | None = None
        """The session the last turn used."""
        self.last_used = time.monotonic()
        self._process: Any = None
        self._socket: SocketLink | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._stderr_task: asyncio.Task[None] | None = None

    def matches(
        self, name: str, agent: AgentCommand, cwd: Path, allow_terminals: bool
    ) -> bool:
        """Whether this agent can answer a turn with these settings."""
        return (name, agent, cwd, allow_terminals) == (
            self.name,
            self.agent,
            self.cwd,
            self.allow_terminals,
        )

    @property
    def alive(self) -> bool:
        """The process runs (or the socket is open) and its connection is open."""
        if self.conn is None:
            return False
        if self._socket is not None:
            return self._socket.open
        return self._process is not None and self._process.returncode is None

    async def last_error(self) -> str | None:
        """Why the agent's process ended: its last stderr line, else its status.

        Its stderr is read to the end first (at most :data:`STDERR_WAIT_S`):
        an agent that just exited may not have been heard out yet. Without a
        line, its exit status once it is reaped (as long again at most).
        """
        task, process = self._stderr_task, self._process
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=STDERR_WAIT_S)
        if self._stderr:
            return self._stderr[-1]
        if process is None:
            return None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), STDERR_WAIT_S)
        status = process.returncode
        if status is None:
            return None
        return f"killed by {signal_name(-status)}" if status < 0 else f"status {status}"

    def idle_for(self) -> float:
        """Seconds since the last turn ended."""
        return time.monotonic() - self.last_used

    async def start(self, client: AcpClient) -> ClientSideConnection:
        """Start the agent with ``client`` answering it; return the connection.

        A program (``acp``, ``ssh`` included) runs in its own session (a
        terminal's Ctrl-C reaches agent-doc only; :meth:`close` and
        :meth:`kill` end its whole group); its stderr is kept to explain an
        exit. An ``acp-ws`` agent is connected to over its WebSocket.
        """
        from acp.client.connection import ClientSideConnection

        quiet_dropped_notifications()
        if self.agent.transport == "acp-ws":
            socket = await connect_socket(self.name, self.agent)
            conn = ClientSideConnection(cast("Any", client), socket)
            self.conn, self._socket, self.client = conn, socket, client
            return conn
        if shutil.which(self.agent.command) is None:
            raise AgentError(f"agent command '{self.agent.command}' not found on PATH")
        env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
        try:
            process = await asyncio.create_subprocess_exec(
                self.agent.command,
                *self.agent.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                limit=STDIO_LIMIT,
                start_new_session=True,
            )
        except OSError as exc:
            raise AgentError(f"cannot start agent '{self.name}': {exc}") from exc
        live_groups.add(process.pid)
        self._stderr.clear()
        self._stderr_task = asyncio.get_running_loop().create_task(
            self._keep_stderr(process.stderr)
        )
        conn = ClientSideConnection(cast("Any", client), process.stdin, process.stdout)
        self.conn, self._process, self.client = conn, process, client
        return conn

    async def _keep_stderr(self, stream: asyncio.StreamReader | None) -> None:
        """Read the agent's stderr to its end, keeping the last lines.

        Read in blocks, never a whole line at once: an endless line keeps only
        its last :data:`STDERR_LINE_CHARS` bytes and never stalls the agent.
        """
        if stream is None:
            return
        tail = b""
        with contextlib.suppress(Exception):
            while block := await stream.read(65536):
                *lines, tail = (tail + block).split(b"\n")
                tail = tail[-STDERR_LINE_CHARS:]
                self._keep_lines(lines)
        self._keep_lines([tail])

    def _keep_lines(self, lines: list[bytes]) -> None:
        for raw in lines:
            line = raw[-STDERR_LINE_CHARS:].decode("utf-8", "replace").strip()
            if line:
                self._stderr.append(line)

    @property
    def pid(self) -> int | None:
        """The agent's process id (its process group too), while started."""
        return None if self._process is None else int(self._process.pid)

    def turn_ended(self) -> None:
        """A turn finished: its terminals are killed, the idle clock restarts."""
        self.last_used = time.monotonic()
        if self.client is not None and self.client.terminals is not None:
            self.client.terminals.close()
            self.client.terminals = None

    async def close(self) -> None:
        """Stop the agent (idempotent); a next turn starts a new one.

        Its stdin is closed first (an ACP agent exits on EOF); whatever of its
        process group still runs after :data:`EOF_GRACE_S` is stopped
        (SIGTERM, then SIGKILL).
        """
        conn, process, socket = self.conn, self._process, self._socket
        self.turn_ended()
        self.conn, self.client, self.init, self.session_id = None, None, None, None
        self._process, self._socket = None, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        if socket is not None:
            await socket.close()
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), EOF_GRACE_S)
        await stop_group_async(process.pid)
        await _reaped(process, self._stderr_task)

    async def kill(self, *, hurry: bool = False) -> None:
        """Stop the agent's process group now (SIGTERM, SIGKILL after the grace).

        An ``acp-ws`` agent's socket is closed instead (its server ends the
        connection's sessions).
        """
        process, socket = self._process, self._socket
        if socket is not None:
            await socket.close()
        if process is not None:
            await stop_group_async(process.pid, grace=0.0 if hurry else GRACE_S)


async def _reaped(process: Any, stderr_task: asyncio.Task[None] | None) -> None:
    """Wait (bounded) until the loop has seen ``process`` exit and its pipes close.

    The group is gone once :func:`stop_group_async` returns, but the loop
    learns it from its child watcher a moment later: closed before that,
    asyncio prints "Loop … that handles pid N is closed" and the transport's
    ``__del__`` "Event loop is closed" on the person's terminal.
    """
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(process.wait(), EOF_GRACE_S)
    for stream in (process.stdout,):
        if stream is not None:  # the connection stopped reading: drain to EOF
            with contextlib.suppress(Exception):
                await asyncio.wait_for(stream.read(), STDERR_WAIT_S)
    if stderr_task is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(stderr_task, STDERR_WAIT_S)
        stderr_task.cancel()


_DROPPED = "Unhandled error while handling notification"


class _DroppedNotification(logging.Filter):
    """Turns the ACP SDK's traceback for a notification it could not read into
    one debug line (the whole traceback with ``AGENT_DOC_DEBUG=1``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for the SDK's dropped-notification record (unless debugging)."""
        if not str(record.msg).startswith(_DROPPED) or os.environ.get(
            "AGENT_DOC_DEBUG"
        ):
            return True
        error = record.exc_info[1] if record.exc_info else None
        first = str(error).splitlines()[:3] if error is not None else []
        logger.debug("%s: %s", record.getMessage(), " / ".join(first))
        return False


def quiet_dropped_notifications() -> None:
    """Keep the SDK's traceback for an unreadable notification off the terminal.

    An agent may send a notification our SDK's schema rejects (the Claude
    adapter's ``usage_update`` with ``"used": null``); the SDK drops it and
    logs the validation traceback through the root logger, while the turn goes
    on. Idempotent.
    """
    root = logging.getLogger()
    if not any(isinstance(f, _DroppedNotification) for f in root.filters):
        root.addFilter(_DroppedNotification())
