"""A small real NDJSON Unix-socket server (threads) standing in for agent-doc-lsp."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[dict[str, Any]], dict[str, Any] | None]


class FakeServer:
    """A threaded NDJSON server: one request line → ``handler`` → one reply line."""

    def __init__(self, handler: Handler, sock_dir: Path | None = None) -> None:
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.short = Path(tempfile.mkdtemp(prefix="adt-", dir="/tmp"))
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        bound = self.short / "s"
        self.sock.bind(str(bound))
        self.sock.listen(8)
        if sock_dir is None:
            self.path = bound
        else:
            # A bound socket keeps working after a rename: this puts it under a
            # directory whose path is far longer than sun_path allows.
            self.path = sock_dir / "s"
            bound.rename(self.path)
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                request = json.loads(data)
                self.requests.append(request)
                reply = self.handler(request)
                if reply is None:  # simulate a hung server
                    self.release.wait(10)
                    continue
                conn.sendall(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        self.release.set()
        self.sock.close()
        shutil.rmtree(self.short, ignore_errors=True)


def register(root: Path, pid: int, sock: Path | str) -> Path:
    folder = root / ".agent-doc" / "servers"
    folder.mkdir(parents=True, exist_ok=True)
    entry = folder / f"{pid}.json"
    entry.write_text(
        json.dumps({"pid": pid, "socket": str(sock), "roots": [str(root)]})
    )
    return entry


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid
