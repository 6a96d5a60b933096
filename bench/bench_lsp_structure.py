"""Benchmark the language server's structure features.

* documentSymbol + diagnostics on a 1 MB / 20k-line document, in process, calling
  exactly what the handlers call (core + convert; documentSymbol includes its
  JSON encoding); target ≤ 20 ms. Those rows are cold (nothing reused); one more
  row times documentSymbol after a one-line edit, reusing unchanged components
  as the server does.
* one keystroke ``didChange``: pygls' incremental apply plus our didChange
  listeners (all registered features); target ≤ 2 ms.
* RSS of a real server process (stdio) holding 100 open 100 KB documents;
  target ≤ 150 MB.

Run: ``.venv/bin/python bench/bench_lsp_structure.py``
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent_doc.document.components import clear_scan_memos
from agent_doc.editor import outline_parts
from agent_doc.editor import problems
from agent_doc_lsp import convert
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.server import create_server
from agent_doc_lsp.symbol_json import SymbolEncoder


def make_document(size: int, lines: int) -> str:
    """A session document of about ``size`` chars / ``lines`` lines."""
    head = "---\nagent_doc_session: 1234\nagent_doc_format: template\n---\n"
    width = max(size * 39 // (lines * 33) - 1, 10)  # 33 prose lines per 39
    body: list[str] = []
    n = 0
    while len(body) < lines - 8:
        body.append(f"<!-- agent:part{n} patch=append -->")
        body.append(f"## Heading {n} 😀")
        body.extend(("```sh", "# a comment, not a heading", "```"))
        body.extend(
            (f"{i:05d} " + "lorem ipsum dolor sit amet " * 8)[:width] for i in range(36)
        )
        body.append(f"<!-- /agent:part{n} -->")
        n += 1
    body.append("<!-- agent:exchange -->\nq\n<!-- agent:boundary:0123abcd -->")
    body.append("<!-- /agent:exchange -->")
    return head + "\n".join(body) + "\n"


def make_typical(size: int, lines: int) -> str:
    """One long exchange (with ``### Re:`` headings) plus status and pending."""
    head = "---\nagent_doc_session: 1234\n---\n<!-- agent:status -->\nok\n"
    head += (
        "<!-- /agent:status -->\n<!-- agent:pending -->\n- a\n<!-- /agent:pending -->\n"
    )
    width = max(size // lines - 1, 10)
    body = ["<!-- agent:exchange -->"]
    for i in range(lines - 12):
        if i % 100 == 0:
            body.append(f"### Re: question {i} (agent) 😀")
        else:
            body.append((f"{i:05d} " + "lorem ipsum dolor sit amet " * 8)[:width])
    body += ["<!-- agent:boundary:0123abcd -->", "<!-- /agent:exchange -->"]
    return head + "\n".join(body) + "\n"


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median CPU time of ``fn`` in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.thread_time()
        fn()
        samples.append((time.thread_time() - start) * 1000)  # CPU: shared host
    return statistics.median(samples)


def bench_structure(text: str, repeat: int = 15) -> tuple[float, float, float]:
    """Median ms of documentSymbol, diagnostics, and both for one version.

    Each round works on a fresh copy of the text (a new version: nothing is
    cached yet); the line index is built once per version, as the server does.
    """
    symbols_ms: list[float] = []
    diagnostics_ms: list[float] = []
    both_ms: list[float] = []
    clock = time.thread_time  # CPU time: the benchmark host is shared
    for i in range(repeat):
        fresh = text[:-1] + text[-1:] + " " * (i % 2)
        clear_scan_memos()  # the core memoises scans by text equality
        start = clock()
        index = convert.LineIndex(fresh, "utf-16")
        SymbolEncoder().encode(index, outline_parts(fresh, {}, reuse=False))
        middle = clock()
        [convert.diagnostic(index, p) for p in problems(fresh)]
        end = clock()
        symbols_ms.append((middle - start) * 1000)
        both_ms.append((end - start) * 1000)
        fresh2 = text[:-1] + text[-1:]
        clear_scan_memos()
        start = clock()
        index = convert.LineIndex(fresh2, "utf-16")
        [convert.diagnostic(index, p) for p in problems(fresh2)]
        diagnostics_ms.append((clock() - start) * 1000)  # cold, alone
    med = statistics.median
    return med(symbols_ms), med(diagnostics_ms), med(both_ms)


def bench_symbols_after_edit(text: str, repeat: int = 15) -> float:
    """Median ms of documentSymbol after a one-line edit, as the server answers
    it: the line index, component scan and fences of the new version are already
    built (the debounced diagnostics run did it) and the unchanged components
    are reused."""
    encoder = SymbolEncoder()
    encoder.encode(convert.LineIndex(text, "utf-16"), outline_parts(text, {}))
    middle = len(text) // 2
    samples = []
    for i in range(repeat):
        edited = text[:middle] + "x" * (i + 1) + text[middle:]
        index = convert.LineIndex(edited, "utf-16")
        problems(edited)  # the diagnostics run: scans the new version
        start = time.thread_time()
        encoder.encode(index, outline_parts(edited, {}))
        samples.append((time.thread_time() - start) * 1000)
    return statistics.median(samples)


def bench_keystroke(text: str) -> tuple[float, float]:
    """Median ms of pygls' incremental apply and of apply + our listeners."""
    server = create_server()
    server.protocol._workspace = FastWorkspace(None)  # as initialize makes it
    server.protocol.client_capabilities = types.ClientCapabilities()
    loop = asyncio.new_event_loop()
    server.loop = loop
    uri = "file:///bench/doc.md"
    server.workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
    )
    line = text.count("\n") // 2
    version = [1]

    def change() -> None:
        version[0] += 1
        pos = types.Position(line=line, character=5)
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version[0]),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=pos, end=pos), text="x"
            ),
        )

    def keystroke() -> None:
        change()
        server.last_edit[uri] = time.time()
        loop.run_until_complete(server.emit(server.hooks.did_change, uri))

    apply_only = timed(change, 60)
    full = timed(keystroke, 60)
    for timer in server.diagnostic_timers.values():
        timer.cancel()
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    return apply_only, full


class RawClient:
    """A minimal stdio JSON-RPC client (enough to open documents)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_doc_lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: dict[int, Any] = {}
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                chunk = out.read(1)
                if not chunk:
                    return
                header += chunk
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            message = json.loads(out.read(length))
            if "id" in message and "method" not in message:
                with self.cond:
                    self.replies[message["id"]] = message
                    self.cond.notify_all()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, ident: int, method: str, params: Any) -> Any:
        self.send({"id": ident, "method": method, "params": params})
        with self.cond:
            if not self.cond.wait_for(lambda: ident in self.replies, timeout=60):
                raise TimeoutError(method)
        return self.replies[ident]

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        kb = next(
            int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS")
        )
        return kb / 1024

    def close(self) -> None:
        self.request(999999, "shutdown", None)
        self.send({"method": "exit"})
        self.proc.wait(timeout=10)


def bench_memory(docs: int, size: int) -> tuple[float, float]:
    """RSS (MB) of a real server after initialize, and with ``docs`` open."""
    client = RawClient()
    try:
        client.request(
            1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}
        )
        client.send({"method": "initialized", "params": {}})
        idle = client.rss_mb()
        text = make_document(size, size // 50)
        for i in range(docs):
            uri = f"file:///bench/doc{i}.md"
            item = {
                "uri": uri,
                "languageId": "markdown",
                "version": 1,
                "text": text + str(i),
            }
            client.send(
                {"method": "textDocument/didOpen", "params": {"textDocument": item}}
            )
        params = {"textDocument": {"uri": f"file:///bench/doc{docs - 1}.md"}}
        client.request(2, "textDocument/documentSymbol", params)
        time.sleep(1.0)  # let debounced/initial diagnostics settle
        return idle, client.rss_mb()
    finally:
        client.close()


def main() -> None:
    """Run every measurement and print a table."""
    dense = make_document(935_000, 20_000)  # ≈ 1.00 MB with the markup
    typical = make_typical(1_000_000, 20_000)
    rows: list[tuple[str, float, str, float]] = []
    for label, text in (
        ("dense: 515 components", dense),
        ("typical: 1 exchange", typical),
    ):
        size = f"{len(text) / 1e6:.2f} MB/{text.count(chr(10))} lines"
        symbols_ms, diagnostics_ms, both_ms = bench_structure(text)
        edit_ms = bench_symbols_after_edit(text)
        rows += [
            (f"{label}, {size}: documentSymbol", symbols_ms, "ms", 20),
            (f"{label}: documentSymbol after a keystroke", edit_ms, "ms", 20),
            (f"{label}: diagnostics", diagnostics_ms, "ms", 20),
            (f"{label}: symbols + diagnostics, one version", both_ms, "ms", 20),
        ]
    apply_ms, keystroke_ms = bench_keystroke(dense)
    idle_mb, loaded_mb = bench_memory(100, 100_000)
    rows += [
        ("keystroke on 1 MB: incremental apply", apply_ms, "ms", 2),
        (
            "keystroke on 1 MB: apply + all didChange listeners",
            keystroke_ms,
            "ms",
            2,
        ),
        ("server RSS after initialize", idle_mb, "MB", 150),
        ("server RSS, 100 open 100 KB documents", loaded_mb, "MB", 150),
    ]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("median CPU time; structure rows are cold runs (fresh text object)")
    print(f"{'measurement':66} {'value':>10}  {'target':>9}  ok")
    for name, value, unit, target in rows:
        ok = "yes" if value <= target else "NO"
        print(f"{name:66} {value:7.2f} {unit}  ≤{target:>5g} {unit}  {ok}")


if __name__ == "__main__":
    main()
