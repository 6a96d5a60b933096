"""A scripted model for tests: the real agent CLIs talk to it instead of the API.

:class:`ModelServer` listens on a free local port and answers the Anthropic
Messages API (``POST /v1/messages``, what ``claude`` and its ACP adapter call)
and the OpenAI Responses API (``POST /v1/responses``, what ``codex`` calls)
with the next reply of its script (:mod:`tests.model_replies`), streamed as
SSE. Every request is logged (:attr:`ModelServer.requests`) so a test asserts
what the agent sent: the prompt, the earlier messages of a resumed
conversation, the ``tool_result`` after a tool call, the model name.

Requests beyond the script get :attr:`ModelServer.default`. Other paths (token
counting, model lists) answer a minimal JSON and take no reply from the script.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

from tests.model_replies import Cut
from tests.model_replies import Fault
from tests.model_replies import Hang
from tests.model_replies import Reply
from tests.model_replies import Text
from tests.model_replies import anthropic_events
from tests.model_replies import responses_events
from tests.model_replies import sse

HANG_LIMIT_S = 120.0


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request the agent sent."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model_call(self) -> bool:
        """True for a Messages or Responses API call (one reply of the script)."""
        path = self.path.split("?")[0]
        return path in ("/v1/messages", "/v1/responses")

    def texts(self) -> str:
        """Every text the request carries (system, messages, inputs), joined."""
        return json.dumps(self.body, ensure_ascii=False)

    def last_user_text(self) -> str:
        """The text of the last user message (or Responses input item)."""
        items = self.body.get("messages") or self.body.get("input") or []
        for item in reversed(items):
            if item.get("role") != "user":
                continue
            content = item.get("content")
            if isinstance(content, str):
                return content
            parts = [p.get("text", "") for p in content if isinstance(p, dict)]
            text = "\n".join(p for p in parts if p)
            if text:
                return text
        return ""


class ModelServer:
    """A local HTTP server that plays the model from a script of replies."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []
        self.default: Reply = Text("(unscripted reply)")
        self._script: deque[Reply] = deque()
        self._changed = threading.Condition()
        self._release = threading.Event()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (``ANTHROPIC_BASE_URL``; codex's provider adds ``/v1``)."""
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def start(self) -> ModelServer:
        """Start serving in a thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; a hanging reply returns at once."""
        self._release.set()
        self._http.shutdown()
        self._http.server_close()

    def script(self, *replies: Reply) -> None:
        """Replace the script (and the log); the next model calls get ``replies``.

        A reply still hanging from an earlier script returns now.
        """
        with self._changed:
            self._release.set()
            self._release = threading.Event()
            self._script.clear()
            self._script.extend(replies)
            self.requests.clear()

    def model_calls(self) -> list[ModelRequest]:
        """The logged Messages/Responses API calls, in order."""
        with self._changed:
            return [r for r in self.requests if r.model_call]

    def wait_for_calls(self, count: int, timeout: float = 30.0) -> list[ModelRequest]:
        """Wait until ``count`` model calls arrived; return them (bounded)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while sum(r.model_call for r in self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{count} model calls did not arrive")
                self._changed.wait(left)
        return self.model_calls()

    def _record(self, request: ModelRequest) -> Reply | None:
        """Log ``request``; the reply it gets (``None``: not a model call)."""
        with self._changed:
            self.requests.append(request)
            self._changed.notify_all()
            if not request.model_call:
                return None
            return self._script.popleft() if self._script else self.default


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_ModelHandler):
        model = server

    return Handler


class _ModelHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    model: ModelServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is the record."""

    def do_GET(self) -> None:
        """Model lists and the like: a minimal empty answer."""
        self.model._record(ModelRequest(self.path, dict(self.headers), {}))
        self._json(200, {"data": [], "models": [], "object": "list"})

    def do_POST(self) -> None:
        """A model call (the next reply of the script) or a side call."""
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"raw": raw.decode("utf-8", "replace")}
        request = ModelRequest(self.path, dict(self.headers), body)
        reply = self.model._record(request)
        if reply is None:
            self._json(200, {"input_tokens": 12})
        elif isinstance(reply, Fault):
            self._fault(reply)
        elif isinstance(reply, Hang):
            self.model._release.wait(HANG_LIMIT_S)
            self.close_connection = True
        else:
            self._stream(request, reply)

    def _json(self, status: int, data: dict[str, Any], **headers: str) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(payload)

    def _fault(self, fault: Fault) -> None:
        error = {
            "type": "error",
            "error": {"type": fault.kind, "message": fault.message},
        }
        if "responses" in self.path:
            error = {"error": {"type": fault.kind, "message": fault.message,
                               "code": fault.kind}}  # fmt: skip
        extra = {"retry_after": str(fault.retry_after)} if fault.retry_after else {}
        self._json(fault.status, error, request_id="req_scripted", **extra)

    def _stream(self, request: ModelRequest, reply: Text | Any) -> None:
        model = str(request.body.get("model", "scripted"))
        responses = request.path.split("?")[0].endswith("/responses")
        events = (responses_events if responses else anthropic_events)(reply, model)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        delay = reply.delay if isinstance(reply, Text) else 0.0
        try:
            for name, data in events:
                self._chunk(sse(name, data))
                if delay and name.endswith("delta"):
                    time.sleep(delay)
            if isinstance(reply, Cut):
                self._reset()
                return
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the agent went away (Ctrl-C): nothing to answer
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _reset(self) -> None:
        """Drop the connection with a TCP reset (the agent sees ECONNRESET)."""
        self.close_connection = True
        linger = struct.pack("ii", 1, 0)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        self.connection.close()
