"""The person at the terminal during an ACP ``run``: activity shown, questions asked.

The agent's tool calls and plan show on stderr (stdout stays for data), and
its permission requests are asked there and answered on stdin. Without a
terminal on stdin the agent's ``permissions`` policy (``[agents.NAME]
permissions = "allow"`` or ``"reject"``) answers; with the default ``"ask"``
the run stops with a clear error instead of hanging. A question still open
when the turn is cancelled ends unanswered.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from agent_doc.cycle.acp_requests import PermissionChoice
from agent_doc.cycle.acp_requests import pick_by_policy
from agent_doc.errors import AgentError


def say(line: str) -> None:
    """Show one line to the person on stderr."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Console:
    """The terminal of one ACP turn of ``agent-doc run`` (stderr, stdin)."""

    def __init__(self, name: str, policy: str) -> None:
        self.name = name
        """The agent's name (in every line)."""
        self.policy = policy
        """``ask`` (on the terminal), ``allow`` or ``reject``."""
        self.cancelled: asyncio.Event | None = None
        """Set when the turn is cancelled (a question on the terminal ends)."""

    def cancel(self) -> None:
        """The turn is cancelled: an open question ends unanswered."""
        self.cancelled = self.cancelled or asyncio.Event()
        self.cancelled.set()

    def show_activity(self, message: str) -> None:
        """One line of the agent's plan or tool calls."""
        say(f"agent-doc: {self.name}: {message}")

    async def ask_permission(
        self, title: str, choices: list[PermissionChoice]
    ) -> str | None:
        """Ask on the terminal, or answer by the agent's ``permissions`` policy."""
        if self.policy != "ask":
            return pick_by_policy(self.policy, choices)
        if not sys.stdin.isatty():
            raise AgentError(
                f"agent '{self.name}' asks permission ({title}) but stdin is not "
                f'a terminal: set permissions = "allow" or "reject" in '
                f"[agents.{self.name}]"
            )
        lines = [f"agent-doc: {self.name} asks permission: {title}"]
        lines += [f"  {i}. {c.name}" for i, c in enumerate(choices, 1)]
        lines.append("choose a number (empty: cancel): ")
        say("\n".join(lines))  # stdout stays for data
        answer = await self._read_line()
        if answer is None:
            return None
        if answer.strip().isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1].option_id
        return None

    async def _read_line(self) -> str | None:
        """A line typed on the terminal, or None once the turn is cancelled.

        Read when stdin is readable (no thread: a cancelled question must not
        leave one blocked in ``readline`` that ``asyncio.run`` would wait for).
        """
        loop = asyncio.get_running_loop()
        line: asyncio.Future[str] = loop.create_future()
        fd = sys.stdin.fileno()

        def readable() -> None:
            if not line.done():
                line.set_result(sys.stdin.readline())

        self.cancelled = self.cancelled or asyncio.Event()
        stop = loop.create_task(self.cancelled.wait())
        loop.add_reader(fd, readable)
        try:
            either: set[asyncio.Future[Any]] = {line, stop}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            loop.remove_reader(fd)
            stop.cancel()
        return line.result() if line.done() else None
