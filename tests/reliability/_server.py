"""Driving the real language server: start an editor session, talk to its socket."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient

from tests.lsp.editor_client import ApplyMode
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor


async def open_session(
    client: LanguageClient,
    root: Path,
    *,
    mode: ApplyMode = ApplyMode.REJECT_STALE,
    settings: dict[str, Any] | None = None,
) -> tuple[Editor, dict[str, Any]]:
    """Initialize ``client`` on ``root`` (a project); return it and its registration."""
    editor = await start_editor(client, root=root, mode=mode, settings=settings)
    servers = root / ".agent-doc" / "servers"

    def found() -> list[Path]:
        return list(servers.glob("*.json")) if servers.is_dir() else []

    entries = await editor.wait_for(found, 10.0, "server registration")
    return editor, json.loads(entries[0].read_text())


async def ask(sock: str, line: bytes, timeout: float = 10.0) -> dict[str, Any]:
    """Send one raw request line on a fresh connection; return the reply object."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_unix_connection(sock, limit=256 * 1024 * 1024), timeout
    )
    try:
        writer.write(line)
        await writer.drain()
        raw = await asyncio.wait_for(reader.readline(), timeout)
    finally:
        writer.close()
    reply: dict[str, Any] = json.loads(raw)
    return reply


def request(**fields: Any) -> bytes:
    """One NDJSON request line."""
    return json.dumps(fields).encode() + b"\n"


async def alive(sock: str, file: Path) -> dict[str, Any]:
    """A follow-up ``read`` request that must succeed (the server is still up)."""
    started = time.monotonic()
    reply = await ask(sock, request(type="read", file=str(file)))
    assert reply.get("ok") is True, reply
    assert time.monotonic() - started < 10
    return reply


async def wait_open(sock: str, file: Path, timeout: float = 10.0) -> dict[str, Any]:
    """Wait until the server has ``file`` open (didOpen travels over stdio)."""
    deadline = time.monotonic() + timeout
    while True:
        reply = await alive(sock, file)
        if reply["open"]:
            return reply
        assert time.monotonic() < deadline, f"{file} never opened in the server"
        await asyncio.sleep(0.02)
