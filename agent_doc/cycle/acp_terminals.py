"""Terminals an ACP agent runs through us (``terminal/*``; trusted workspaces only).

Each terminal is one process (argv, no shell) started in the project folder;
its stdout and stderr are collected together, keeping at most the last
``output_byte_limit`` bytes. The caller decides whether terminals are offered
at all (:attr:`agent_doc.cycle.acp_client.AcpHost.allow_terminals`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT_LIMIT = 1024 * 1024
"""Bytes of output kept per terminal when the agent sets no limit."""


@dataclass
class _Terminal:
    process: asyncio.subprocess.Process
    limit: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None


class Terminals:
    """The terminals of one ACP turn, by id."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._terminals: dict[str, _Terminal] = {}

    async def create(
        self,
        command: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> Any:
        """Start ``command args`` and return its ``CreateTerminalResponse``."""
        from acp.schema import CreateTerminalResponse

        extra = {e.name: e.value for e in env or []}
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=cwd or str(self.cwd),
            env={**os.environ, **extra},
            start_new_session=True,
        )
        terminal = _Terminal(process, output_byte_limit or DEFAULT_OUTPUT_LIMIT)
        terminal.reader = asyncio.get_running_loop().create_task(_collect(terminal))
        terminal_id = f"term-{uuid.uuid4().hex[:8]}"
        self._terminals[terminal_id] = terminal
        return CreateTerminalResponse(terminal_id=terminal_id)

    def _get(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise ValueError(f"unknown terminal {terminal_id}")
        return terminal

    def output(self, terminal_id: str) -> Any:
        """The output so far and, once exited, the exit status."""
        from acp.schema import TerminalOutputResponse

        terminal = self._get(terminal_id)
        return TerminalOutputResponse(
            output=terminal.output.decode("utf-8", errors="replace"),
            truncated=terminal.truncated,
            exit_status=_status(terminal.process),
        )

    async def wait(self, terminal_id: str) -> Any:
        """Wait until the process exits; return its exit code or signal."""
        from acp.schema import WaitForTerminalExitResponse

        terminal = self._get(terminal_id)
        code = await terminal.process.wait()
        if terminal.reader is not None:
            await terminal.reader
        return WaitForTerminalExitResponse(**_exit_fields(code))

    def kill(self, terminal_id: str) -> Any:
        """Kill the process (its output stays readable)."""
        from acp.schema import KillTerminalResponse

        _kill(self._get(terminal_id).process)
        return KillTerminalResponse()

    def release(self, terminal_id: str) -> Any:
        """Kill the process if still running and forget the terminal."""
        from acp.schema import ReleaseTerminalResponse

        terminal = self._terminals.pop(terminal_id, None)
        if terminal is not None:
            _kill(terminal.process)
        return ReleaseTerminalResponse()

    def close(self) -> None:
        """Kill every terminal still running (end of the turn)."""
        for terminal_id in list(self._terminals):
            self.release(terminal_id)


async def _collect(terminal: _Terminal) -> None:
    stream = terminal.process.stdout
    assert stream is not None
    while chunk := await stream.read(65536):
        terminal.output += chunk
        excess = len(terminal.output) - terminal.limit
        if excess > 0:
            del terminal.output[:excess]
            terminal.truncated = True


def _exit_fields(code: int) -> dict[str, Any]:
    if code < 0:
        return {"exit_code": None, "signal": signal.Signals(-code).name}
    return {"exit_code": code, "signal": None}


def _status(process: asyncio.subprocess.Process) -> Any:
    from acp.schema import TerminalExitStatus

    if process.returncode is None:
        return None
    return TerminalExitStatus(**_exit_fields(process.returncode))


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
