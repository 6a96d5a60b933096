"""A small stdio JSON-RPC client for timing language servers at the client.

Answers the server's own requests the way an editor would (configuration,
registrations, progress) and lets a caller answer custom ones (the VS Code
markdown server's ``markdown/parse``). Replies are matched by id; the time of a
request is measured from just before it is written to the moment its reply has
been read and decoded.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

Handler = Callable[[Any], Any]


class StdioClient:
    """Run ``argv`` and speak LSP with it over stdin/stdout."""

    def __init__(self, argv: list[str], handlers: dict[str, Handler] | None = None):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.handlers = handlers or {}
        self.replies: dict[int, tuple[float, Any]] = {}
        self.cond = threading.Condition()
        self.lock = threading.Lock()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(out.read(length))
            now = time.perf_counter()
            if "method" in message and "id" in message:
                handler = self.handlers.get(message["method"], lambda _p: None)
                result = handler(message.get("params"))
                self.send({"id": message["id"], "result": result})
            elif "id" in message and "method" not in message:
                with self.cond:
                    self.replies[message["id"]] = (now, message)
                    self.cond.notify_all()
            else:
                self.on_notification(now, message["method"], message.get("params"))

    def on_notification(self, at: float, method: str, params: Any) -> None:
        """A notification from the server arrived at ``at`` (ignored here)."""

    def send(self, message: dict[str, Any]) -> None:
        """Write one message."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self.send({"method": method, "params": params})

    def request(
        self, method: str, params: Any, timeout: float = 60
    ) -> tuple[float, Any]:
        """Send a request; return (wall ms at the client, the reply message)."""
        ident = self.next_id
        self.next_id += 1
        start = time.perf_counter()
        self.send({"id": ident, "method": method, "params": params})
        with self.cond:
            if not self.cond.wait_for(lambda: ident in self.replies, timeout):
                raise TimeoutError(method)
            done, reply = self.replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return (done - start) * 1000, reply.get("result")

    def initialize(self, root_uri: str, options: Any = None) -> None:
        """``initialize`` + ``initialized`` with typical editor capabilities."""
        caps = {
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "foldingRange": {"lineFoldingOnly": True},
                "synchronization": {"didSave": True},
            },
            "workspace": {"configuration": True, "workspaceFolders": True},
        }
        params = {"processId": None, "rootUri": root_uri, "capabilities": caps,
                  "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
                  "initializationOptions": options}  # fmt: skip
        self.request("initialize", params)
        self.notify("initialized", {})

    def close(self) -> None:
        """Shut the server down (kill it if it does not exit)."""
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (TimeoutError, RuntimeError, subprocess.TimeoutExpired, OSError):
            self.proc.kill()
