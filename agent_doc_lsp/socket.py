"""The server side of the project socket: how ``agent-doc`` hands work to us.

Each running server listens on a Unix socket in a private directory
(``$XDG_RUNTIME_DIR/agent-doc`` else ``/tmp/agent-doc-<uid>``, mode 0700, the
socket 0600, a short random name so the path stays under the OS limit) and
registers itself in ``<project>/.agent-doc/servers/<pid>.json`` as
``{"pid", "socket", "roots"}`` for every workspace folder that lies in an
agent-doc project. The protocol is NDJSON: one request line, one reply line
(see ``docs/architecture.md``). Malformed input gets ``{"ok": false, "error"}``
and never takes the server down.

This module is transport only; what each message does is decided by the
``Handler`` it is given (``features/writes.py``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import secrets
import signal
import stat
import tempfile
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import Any

from agent_doc.store.procs import pid_alive
from agent_doc.write.server_link import remove_stale_socket

logger = logging.getLogger(__name__)

MAX_LINE = 16 * 1024 * 1024
"""Longest request line accepted (bytes, without the newline)."""
MAX_SOCKET_PATH = 100
"""Unix socket paths must fit in ``sun_path`` (108 bytes on Linux, 104 on macOS)."""

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one decoded request with one reply object."""


def _private_dir(path: Path) -> Path:
    """Create ``path`` with mode 0700 and check it is ours and private."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a directory owned by us")
    if stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(0o700)
    return path


def socket_dir() -> Path:
    """Return the private directory for sockets, creating it (mode 0700)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir() and len(runtime) < MAX_SOCKET_PATH - 24:
        with contextlib.suppress(OSError):
            return _private_dir(Path(runtime) / "agent-doc")
    tmp = tempfile.gettempdir()
    if len(tmp) >= MAX_SOCKET_PATH - 40:  # a long $TMPDIR
        tmp = "/tmp"
    return _private_dir(Path(tmp) / f"agent-doc-{os.getuid()}")


def prune_registrations(servers: Path) -> None:
    """Remove registrations (and their sockets) of servers that are gone."""
    for entry in servers.glob("*.json"):
        try:
            data = json.loads(entry.read_text("utf-8"))
            alive = pid_alive(int(data["pid"]))
        except (OSError, ValueError, KeyError, TypeError):
            alive = False
            data = {}
        if not alive:
            logger.info("removing stale server registration %s", entry)
            sock = data.get("socket") if isinstance(data, dict) else None
            if isinstance(sock, str) and sock:
                remove_stale_socket(sock)  # only a socket of ours, never any file
            # last: a registration gone means its socket is gone too (and one
            # left by a crash here is pruned again next time)
            entry.unlink(missing_ok=True)


def _error(message: str) -> dict[str, Any]:
    return {"ok": False, "error": message}


class ProjectSocket:
    """A listening socket plus its project registrations.

    Parameters
    ----------
    handler
        Coroutine answering one decoded request.
    """

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        """Answers each request."""
        self.path: Path | None = None
        """The socket file, once listening."""
        self.registrations: list[Path] = []
        """The ``servers/<pid>.json`` files we wrote."""
        self._server: asyncio.AbstractServer | None = None

    async def start(self, projects: Iterable[Path], roots: Iterable[Path]) -> Path:
        """Listen, then register in each project's ``.agent-doc/servers/``."""
        path = socket_dir() / f"{secrets.token_hex(4)}.sock"
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(path), limit=MAX_LINE + 1
        )
        path.chmod(0o600)
        self.path = path
        atexit.register(self.close)
        _install_signal_cleanup(self.close)
        self.register(projects, roots)
        logger.info(
            "project socket %s registered in %d project(s)",
            path,
            len(self.registrations),
        )
        return path

    def register(self, projects: Iterable[Path], roots: Iterable[Path]) -> None:
        """(Re)write the registrations: one per project, listing ``roots``."""
        self._unregister()
        record = {
            "pid": os.getpid(),
            "socket": str(self.path),
            "roots": [str(r) for r in roots],
        }
        for project in dict.fromkeys(projects):
            self._register(project, record)

    def _unregister(self) -> None:
        for entry in self.registrations:
            with contextlib.suppress(OSError):
                entry.unlink(missing_ok=True)
        self.registrations = []

    def _register(self, project: Path, record: dict[str, Any]) -> None:
        servers = project / ".agent-doc" / "servers"
        try:
            servers.mkdir(exist_ok=True)
            prune_registrations(servers)
            target = servers / f"{os.getpid()}.json"
            tmp = target.with_suffix(".tmp")
            tmp.write_text(json.dumps(record), "utf-8")
            tmp.replace(target)
        except OSError as exc:
            logger.warning("cannot register in %s: %s", servers, exc)
            return
        self.registrations.append(target)

    def close(self) -> None:
        """Stop listening; remove the socket and every registration (idempotent)."""
        self._unregister()
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)
            self.path = None

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Answer request lines on one connection until it closes."""
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    if not exc.partial.strip():
                        return
                    line = exc.partial
                except asyncio.LimitOverrunError:
                    await _reply(
                        writer, _error(f"request line longer than {MAX_LINE} bytes")
                    )
                    return
                reply = await self._answer(line)
                await _reply(writer, reply)
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return _error(f"bad JSON: {exc}")
        if not isinstance(message, dict):
            return _error("a request must be a JSON object")
        try:
            return await self.handler(message)
        except Exception as exc:
            logger.exception("socket request %r failed", message.get("type"))
            return _error(f"{type(exc).__name__}: {exc}")


async def _reply(writer: asyncio.StreamWriter, reply: dict[str, Any]) -> None:
    writer.write(json.dumps(reply).encode("utf-8") + b"\n")
    await writer.drain()


def _install_signal_cleanup(cleanup: Callable[[], None]) -> None:
    """Run ``cleanup`` on SIGTERM/SIGHUP, then the handler installed before
    (stopping the agents, see ``__main__``) or the default action."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(signum)
        if previous is signal.SIG_IGN:
            continue

        def on_signal(
            num: int, frame: FrameType | None, prior: object = previous
        ) -> None:
            cleanup()
            if callable(prior):
                prior(num, frame)
            signal.signal(num, signal.SIG_DFL)
            os.kill(os.getpid(), num)

        with contextlib.suppress(ValueError):  # not the main thread
            signal.signal(signum, on_signal)
