"""Real parts for the shared-room tests: an ``agent-doc serve`` process and peers.

:class:`ServeProcess` runs the real server (``--port 0``) and reads its stderr
on a thread, so a test awaits a log line instead of sleeping. :func:`peer`
joins a room as a pycrdt ``Provider`` over httpx-ws, like an editor would.
Every wait is bounded.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import asynccontextmanager
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pycrdt

from agent_doc.share.channel import WebsocketChannel
from agent_doc.share.room_connect import open_room

SESSION = "6f1c2a10-0000-4000-8000-00000000a001"
DOC = f"""---
agent_doc_session: {SESSION}
agent_doc_format: template
---

# Pairing

<!-- agent:status -->
idle
<!-- /agent:status -->

<!-- agent:exchange -->
## User

What is 6 x 7?
<!-- /agent:exchange -->
"""
ANSWER = "<!-- patch:exchange -->\nIt is 42.\n<!-- /patch:exchange -->\n"


class ServeProcess:
    """A real ``agent-doc serve`` subprocess with its stderr collected."""

    def __init__(
        self,
        root: Path,
        *args: str,
        env: dict[str, str] | None = None,
        python_args: tuple[str, ...] = (),
    ):
        self.root = root
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *python_args,  # e.g. ("-m", "cProfile", "-o", OUT): bench/profile_serve.py
                "-m",
                "agent_doc.cli.entry",
                "serve",
                "--port",
                "0",
                *args,
            ],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = ""

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            self._queue.put(line)
        self._queue.put(None)

    def wait_line(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        """The first (new) stderr line matching ``pattern``; fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line {pattern!r} in {self.lines}")
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"server exited; stderr: {self.lines}")
            found = re.search(pattern, line)
            if found:
                return found

    def start(self) -> ServeProcess:
        """Wait for the listening line; ``url`` is then ``ws://127.0.0.1:PORT``."""
        self.url = self.wait_line(r"listening on (ws://\S+)/<session id>").group(1)
        return self

    def room(self, session: str = SESSION) -> str:
        return f"{self.url}/{session}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int:
        """SIGTERM, then the exit code (the server flushes its files first)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=20)


def token_of(root: Path) -> str:
    return (root / ".agent-doc" / "share" / "token").read_text().strip()


@dataclass
class Peer:
    """One joined peer: its document, text and channel."""

    doc: pycrdt.Doc[Any]
    text: pycrdt.Text
    channel: WebsocketChannel

    def type(self, at: int, chars: str) -> None:
        """Insert ``chars`` at UTF-8 offset ``at`` (one transaction)."""
        self.text.insert(at, chars)

    async def until(self, check: Callable[[str], bool], timeout: float = 10) -> str:
        """Wait until ``check(text)`` holds (woken by the document's changes)."""
        changed = anyio.Event()

        def on_change(_event: Any) -> None:
            nonlocal changed
            changed.set()

        sub = self.doc.observe(on_change)
        try:
            with anyio.fail_after(timeout):
                while not check(str(self.text)):
                    await changed.wait()
                    changed = anyio.Event()
        finally:
            self.doc.unobserve(sub)
        return str(self.text)


@asynccontextmanager
async def peer(
    url: str, token: str | None, doc: pycrdt.Doc[Any] | None = None
) -> AsyncIterator[Peer]:
    """Join the room at ``url`` as a Yjs peer (optionally with an existing doc),
    the way the product's peers join (:func:`open_room`)."""
    doc = doc if doc is not None else pycrdt.Doc()
    text = doc.get("content", type=pycrdt.Text)
    async with open_room(url, token, doc, WebsocketChannel) as channel:
        yield Peer(doc, text, channel)


async def wait_file(
    path: Path, check: Callable[[str], bool], timeout: float = 10
) -> str:
    """Wait until the file's text passes ``check`` (woken by file events)."""
    import watchfiles

    text = path.read_text(encoding="utf-8")
    if check(text):
        return text
    with anyio.move_on_after(timeout):
        async for _changes in watchfiles.awatch(
            path.parent, rust_timeout=200, yield_on_timeout=True, debounce=50
        ):
            text = path.read_text(encoding="utf-8")
            if check(text):
                return text
    raise AssertionError(f"{path} never passed the check; it holds:\n{text}")


@contextmanager
def serving(project: Path, name: str = "pair.md") -> Iterator[ServeProcess]:
    """A real ``agent-doc serve`` of ``project`` with the session document
    :data:`DOC` written as ``name``; killed on exit."""
    (project / name).write_text(DOC, encoding="utf-8")
    server = ServeProcess(project).start()
    try:
        yield server
    finally:
        server.kill()


async def stored_text(db: Path, name: str = SESSION) -> str:
    """The text a fresh document gets from a room's SQLiteYStore ``db``."""
    from pycrdt.store import SQLiteYStore

    store = SQLiteYStore(name)
    store.db_path = str(db)
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    async with anyio.create_task_group() as tasks:
        await tasks.start(store.start)
        await store.apply_updates(doc)
        await store.stop()
    return str(doc.get("content", type=pycrdt.Text))
