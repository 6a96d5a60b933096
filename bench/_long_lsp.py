"""The language server on a long conversation: the real ``agent-doc-lsp`` over
stdio (:mod:`bench._lspclient`), plus two in-process CPU measures.

Over the wire, a *ping* is a request for a method the server does not have;
pygls answers it at once, but only after the handlers of the messages before
it (it reads one message at a time and runs each handler's synchronous part
first). So didOpen → ping reply is the time the server is busy with the open
(including the diagnostics it publishes at once), and a keystroke's didChange
→ ping reply, minus a ping alone, is its handling. The debounced diagnostics
run (component problems + the "will be sent" marks) is the time from the last
keystroke to its publishDiagnostics, minus the debounce.

In process (median CPU): one keystroke's didChange as ``bench_lsp_structure``
times it (pygls' incremental apply into the server's ``FastTextDocument`` plus
every didChange listener), and the marks alone (``UnsentBaseline.changes``).
"""

from __future__ import annotations

import json
import logging
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from bench._lspclient import StdioClient
from bench.bench_lsp_structure import bench_keystroke

DEBOUNCE_MS = 300
"""The server's default ``diagnosticsDebounceMs``."""
KEYS = 15
"""Keystrokes typed over the wire (80 ms apart, inside the debounce)."""


class Client(StdioClient):
    """:class:`StdioClient` that also records notifications and can ping."""

    def __init__(self, argv: list[str]) -> None:
        self.notes: list[tuple[float, str, Any]] = []
        self.note_cond = threading.Condition()
        super().__init__(argv)

    def on_notification(self, at: float, method: str, params: Any) -> None:
        """Record the notification (a ping's reply waits on :attr:`note_cond`)."""
        with self.note_cond:
            self.notes.append((at, method, params))
            self.note_cond.notify_all()

    def send_body(self, body: bytes) -> float:
        """Write an encoded message; return ``perf_counter`` before the write."""
        assert self.proc.stdin is not None
        with self.lock:
            start = time.perf_counter()
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        return start

    def ping(self) -> float:
        """Send an unknown request; return the perf_counter of its reply."""
        ident = self.next_id
        self.next_id += 1
        self.send({"id": ident, "method": "agentDoc/benchPing", "params": None})
        with self.cond:
            if not self.cond.wait_for(lambda: ident in self.replies, 120):
                raise TimeoutError("ping")
            return self.replies.pop(ident)[0]

    def wait_diagnostics(self, uri: str, version: int, timeout: float = 120) -> tuple[float, list[Any]]:  # fmt: skip
        """When publishDiagnostics of ``uri`` at ``version`` arrived, and them."""

        def found() -> tuple[float, list[Any]] | None:
            for at, method, params in self.notes:
                if (method == "textDocument/publishDiagnostics" and params["uri"] == uri
                        and params.get("version") == version):  # fmt: skip
                    return at, params["diagnostics"]
            return None

        with self.note_cond:
            if not self.note_cond.wait_for(lambda: found() is not None, timeout):
                raise TimeoutError(f"diagnostics of version {version}")
            result = found()
            assert result is not None
            return result

    def status_kb(self, field: str) -> float:
        """``VmRSS``/``VmHWM`` of the server, in MB."""
        for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if row.startswith(field + ":"):
                return int(row.split()[1]) / 1024
        return 0.0


def _encode(method: str, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode()


def measure_server(server: str, root: Path, doc: Path, text: str) -> dict[str, float]:
    """Open ``text`` as ``doc`` in a fresh server; return the wire measures."""
    client = Client([server])
    uri = doc.as_uri()
    row: dict[str, float] = {}
    try:
        client.initialize(root.as_uri(), {"diagnosticsDebounceMs": DEBOUNCE_MS})
        time.sleep(0.5)
        row["server idle MB"] = client.status_kb("VmRSS")
        pings = []
        for _ in range(7):
            start = time.perf_counter()
            pings.append((client.ping() - start) * 1000)
        ping = statistics.median(pings)
        item = {"uri": uri, "languageId": "markdown", "version": 1, "text": text}
        body = _encode("textDocument/didOpen", {"textDocument": item})
        start = client.send_body(body)
        row["didOpen"] = (client.ping() - start) * 1000 - ping
        client.wait_diagnostics(uri, 1)
        row["server open peak MB"] = client.status_kb("VmHWM")  # the open's transient
        ident = {"textDocument": {"uri": uri}}
        row["documentSymbol first"] = client.request("textDocument/documentSymbol", ident)[0]  # fmt: skip
        row["server opened MB"] = client.status_kb("VmRSS")
        lines = text.split("\n")
        line = len(lines) - 3  # the typed line, just above the closing marker
        column = len(lines[line].encode("utf-16-le")) // 2
        version = 1
        keys: list[float] = []
        symbols: list[float] = []
        runs: list[float] = []
        for k in range(KEYS):
            version += 1
            pos = {"line": line, "character": column + k}
            change = {"range": {"start": pos, "end": pos}, "text": "x"}
            params = {"textDocument": {"uri": uri, "version": version},
                      "contentChanges": [change]}  # fmt: skip
            body = _encode("textDocument/didChange", params)
            start = client.send_body(body)
            keys.append((client.ping() - start) * 1000 - ping)
            if k % 5 == 4:  # a pause: the debounced run, then an outline refresh
                at, found = client.wait_diagnostics(uri, version)
                runs.append((at - start) * 1000 - DEBOUNCE_MS)
                marks = [d for d in found if d.get("code") in ("unsent", "private")]
                row["marks"] = len(marks)
                symbols.append(client.request("textDocument/documentSymbol", ident)[0])
            else:
                time.sleep(0.08)
        row["didChange wire"] = statistics.median(keys)
        row["didChange wire max"] = max(keys)
        row["diagnostics run"] = statistics.median(runs)
        row["documentSymbol"] = statistics.median(symbols)
        row["server peak MB"] = client.status_kb("VmHWM")
        row["server rest MB"] = client.status_kb("VmRSS")  # after the keystrokes
    finally:
        client.close()
    return row


def measure_in_process(text: str, snapshot: str) -> dict[str, float]:
    """Median CPU ms of one didChange (apply + listeners) and of the marks."""
    from agent_doc.document.components import clear_scan_memos
    from agent_doc.editor.unsent import UnsentBaseline

    logging.getLogger("pygls").setLevel(logging.CRITICAL)  # no transport here
    _apply, full = bench_keystroke(text)
    baseline = UnsentBaseline(snapshot)
    samples = []
    for _ in range(3):
        clear_scan_memos()
        fresh = text[:-1] + text[-1:]
        start = time.process_time()
        baseline.changes(fresh)
        samples.append((time.process_time() - start) * 1000)
    return {"didChange CPU": full, "marks CPU": statistics.median(samples)}
