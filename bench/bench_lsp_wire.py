"""documentSymbol and foldingRange over stdio, timed at the client, vs VS Code's server.

Both servers run as real processes over stdio with the same 810 KB document
(200 components, ~1,200 symbols) open. Each sample types one character (an
incremental ``didChange``), lets the server settle, then times the request from
the moment it is written to the moment its reply has been read and decoded:
what an editor waits for. The peer is VS Code's own markdown server
(``vscode-markdown-language-server`` from the npm package
``vscode-langservers-extracted``, installed on first run into
``~/.cache/agent-doc-bench``); it asks the client to tokenize (``markdown/parse``),
which this client answers from tokens prepared (untimed) after each change, as
VS Code's extension answers from its per-version cache. Without npm/node or
the registry, the peer column is skipped with the reason.

Goals: documentSymbol ≤ 20 ms and ≤ 1/17 of the peer; foldingRange: keep.

Run: ``.venv/bin/python bench/bench_lsp_wire.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import structured_document
from bench._lspclient import StdioClient

CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "agent-doc-bench"
)
PEER_BIN = CACHE / "node_modules" / ".bin" / "vscode-markdown-language-server"
SYMBOL_GOAL_MS = 20.0
PEER_FACTOR = 17.0


def peer_command() -> tuple[list[str] | None, str]:
    """The peer's command line, installing it on first use; or (None, reason)."""
    if not PEER_BIN.exists():
        if shutil.which("npm") is None or shutil.which("node") is None:
            return None, "node/npm not installed"
        CACHE.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                ["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund",
                 "vscode-langservers-extracted"],
                check=True, capture_output=True, timeout=600,
            )  # fmt: skip
        except (subprocess.SubprocessError, OSError) as exc:
            return None, f"npm install vscode-langservers-extracted failed: {exc}"
    return [str(PEER_BIN), "--stdio"], ""


def _tokens(text: str) -> list[dict[str, Any]]:
    from markdown_it import MarkdownIt

    def plain(token: Any) -> dict[str, Any]:
        data = token.as_dict()
        data["attrs"] = [list(kv) for kv in (token.attrs or {}).items()] or None
        data["children"] = [plain(c) for c in token.children or []] or None
        return data

    return [plain(t) for t in MarkdownIt("commonmark").parse(text)]


def count_symbols(symbols: list[dict[str, Any]] | None) -> int:
    """Number of symbols in a documentSymbol result, children included."""
    return sum(1 + count_symbols(s.get("children")) for s in symbols or [])


def measure(
    argv: list[str], root: Path, text: str, runs: int, peer: bool
) -> dict[str, Any]:
    """Median client wall ms of documentSymbol and foldingRange, plus counts."""
    cache: dict[str, list[dict[str, Any]]] = {}
    handlers = {"markdown/parse": lambda p: cache[p["uri"]],
                "workspace/configuration": lambda p: [None] * len(p["items"])}  # fmt: skip
    client = StdioClient(argv, handlers)
    uri = (root / "doc.md").as_uri()
    try:
        client.initialize(root.as_uri())
        if peer:
            cache[uri] = _tokens(text)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": text}})  # fmt: skip
        params = {"textDocument": {"uri": uri}}
        _, symbols = client.request("textDocument/documentSymbol", params)  # warm
        client.request("textDocument/foldingRange", params)
        samples: dict[str, list[float]] = {"symbols": [], "folding": []}
        line = text.count("\n") // 2
        for i in range(runs):
            for method, key in (("textDocument/documentSymbol", "symbols"),
                                ("textDocument/foldingRange", "folding")):  # fmt: skip
                version = 2 + 2 * i + (key == "folding")
                pos = {"line": line, "character": 0}
                change = {"range": {"start": pos, "end": pos}, "text": "x"}
                text = text[: _offset(text, line)] + "x" + text[_offset(text, line) :]
                if peer:
                    cache[uri] = _tokens(text)
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [change]})  # fmt: skip
                time.sleep(0.7)  # let debounced diagnostics (300 ms) run first
                took, _ = client.request(method, params)
                samples[key].append(took)
        return {"symbols": statistics.median(samples["symbols"]),
                "folding": statistics.median(samples["folding"]),
                "count": count_symbols(symbols)}  # fmt: skip
    finally:
        client.close()


def _offset(text: str, line: int) -> int:
    pos = 0
    for _ in range(line):
        pos = text.index("\n", pos) + 1
    return pos


def main(runs: int) -> None:
    """Measure both servers and print the table."""
    text = structured_document()
    ours_argv = [sys.executable, "-m", "agent_doc_lsp"]
    peer_argv, reason = peer_command()
    with tempfile.TemporaryDirectory(prefix="ad-bench-") as tmp:
        root = Path(tmp)
        (root / ".agent-doc").mkdir()
        (root / "doc.md").write_text(text, "utf-8")
        ours = measure(ours_argv, root, text, runs, peer=False)
        peer = measure(peer_argv, root, text, runs, peer=True) if peer_argv else None
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"document {len(text.encode()) / 1000:.0f} KB, 200 components, "
          f"{ours['count']} symbols (ours); {runs} samples, one keystroke before "
          "each; median wall ms at the client")  # fmt: skip
    print(f"{'request':28} {'agent-doc-lsp':>14} {'vscode-markdown':>16} {'ratio':>7}")
    for key, name in (("symbols", "documentSymbol"), ("folding", "foldingRange")):
        if peer is None:
            print(f"{name:28} {ours[key]:14.1f} {'skipped':>16} {'-':>7}")
            continue
        print(f"{name:28} {ours[key]:14.1f} {peer[key]:16.1f} "
              f"{ours[key] / peer[key]:7.3f}")  # fmt: skip
    if peer is None:
        print(f"peer skipped: {reason}")
    else:
        print(f"peer symbols: {peer['count']} (headings only)")
        ok = (
            ours["symbols"] <= SYMBOL_GOAL_MS
            and ours["symbols"] * PEER_FACTOR <= peer["symbols"]
        )
        print(f"goal: documentSymbol ≤ {SYMBOL_GOAL_MS:.0f} ms and ≤ 1/{PEER_FACTOR:.0f} "
              f"of the peer -> {'OK' if ok else 'NOT MET'}")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    main(max(parser.parse_args().runs, 3))
