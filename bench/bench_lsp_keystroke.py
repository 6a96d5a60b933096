"""The language server's work per keystroke on a long conversation, in CPU time.

After each keystroke typed at the end of the exchange (the last question), the
server answers ``documentSymbol`` (the editor's outline refresh) and runs its
debounced diagnostics: the component problems plus the "will be sent" marks
against the snapshot. This bench drives a real server object in process
(``FastWorkspace`` as ``initialize`` makes it) with incremental changes and
times, in CPU time of the whole process (worker threads included):

* ``completion``: :func:`agent_doc_lsp.features.completion.completion_list`
  at the cursor, asked first (an editor asks on a trigger character, a
  space, before anything reads the new version);
* ``documentSymbol``: :func:`agent_doc_lsp.features.symbols.symbols`, the
  handler's own code (text, line index, outline, JSON);
* ``diagnostics``: what :func:`agent_doc_lsp.features.diagnostics.publish`
  runs (``read``, ``check``, ``settle``; before them: ``check`` with the line
  index the run builds), without providers;
* ``text``: the buffer's text as the unsent provider reads it
  (``Buffers.get``: since the chunk views, a frozen view of the chunks, no
  join; before them the chunks joined, unless something already joined them
  for this version — before the kept answers, ``documentSymbol`` had);
* ``marks``: the unsent provider's work, ``UnsentBaseline.changes`` of that
  view (of the joined text before the views).

Documents: :func:`bench._long_docs.conversation` at 10 turns (~40 KB) and
5,000 turns (~19 MB); the snapshot is the document before the typed line.
Goal (issue 37): each ≤ 2× at 19 MB against 40 KB.

Run: ``.venv/bin/python bench/bench_lsp_keystroke.py [TURNS ...]`` (it
compiles the packages' bytecode first).
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import compile_packages
from bench._long_docs import conversation
from bench._long_docs import type_line

KEYS = 7
"""Keystrokes per measure (the median is printed)."""
GOAL = 2.0


def _server(text: str) -> tuple[Any, str, asyncio.AbstractEventLoop]:
    from agent_doc_lsp.fast_document import FastWorkspace
    from agent_doc_lsp.server import create_server

    server = create_server()
    server.protocol._workspace = FastWorkspace(None)  # as initialize makes it
    server.protocol.client_capabilities = types.ClientCapabilities()
    loop = asyncio.new_event_loop()
    server.loop = loop
    uri = "file:///bench/doc.md"
    item = types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
    server.workspace.put_text_document(item)
    return server, uri, loop


WALL: dict[str, list[float]] = {}
"""Wall ms of each measure, beside its CPU time."""


def _cpu_ms(fn: Callable[[], Any], name: str = "") -> float:
    start, wall = time.process_time(), time.perf_counter()
    fn()
    if name:
        WALL.setdefault(name, []).append((time.perf_counter() - wall) * 1000)
    return (time.process_time() - start) * 1000


def _provider_text(server: Any, uri: str) -> Any:
    """What the unsent provider compares: the buffer's view (its text before
    the chunk views existed)."""
    buffer = server.buffers.get(uri)
    return buffer.view if hasattr(buffer, "view") else buffer.text


def measure(turns: int) -> dict[str, float]:
    """Median CPU ms of each piece of work after a keystroke, at ``turns``."""
    from agent_doc.editor.unsent import UnsentBaseline
    from agent_doc_lsp.features import diagnostics
    from agent_doc_lsp.features import symbols
    from agent_doc_lsp.features.completion import completion_list as complete

    snapshot, _answer = conversation(turns)
    text = type_line(snapshot, "")
    server, uri, loop = _server(text)
    line = text[: text.rindex("<!-- /agent:exchange")].count("\n") - 1
    baseline = UnsentBaseline(snapshot)
    rows: dict[str, list[float]] = {
        "completion": [],
        "documentSymbol": [],
        "diagnostics": [],
        "text": [],
        "marks": [],
    }
    version = 1
    held: list[Any] = []

    def diagnose() -> None:
        if hasattr(diagnostics, "read"):  # what ``publish`` runs, without providers
            reading = diagnostics.read(server, uri, [])
            result = diagnostics.check(server, reading)
            diagnostics.settle(server, uri, reading, result)
            return
        buffer = server.buffers.get(uri)
        maker = getattr(server, "line_index_maker", None)  # absent before issue 37
        if maker is None:
            diagnostics.check(server, buffer, None, [])
        else:
            diagnostics.check(server, buffer, None, [], maker(uri, buffer.text))

    for key in range(KEYS + 1):
        version += 1
        pos = types.Position(line=line, character=key)
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=pos, end=pos), text="x"
            ),
        )
        tag = f"{turns}:" if key else ""
        asked = types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=key + 1),
        )
        done = _cpu_ms(
            lambda asked=asked: complete(server, asked), tag and tag + "completion"
        )
        sym = _cpu_ms(
            lambda: loop.run_until_complete(symbols.symbols(server, uri)),
            tag and tag + "documentSymbol",
        )
        server._indexes.clear()  # each run builds its own, as on a new version
        diag = _cpu_ms(diagnose, tag and tag + "diagnostics")
        join = _cpu_ms(
            lambda: held.append(_provider_text(server, uri)), tag and tag + "text"
        )
        current = held.pop()
        marks = _cpu_ms(
            lambda current=current: baseline.changes(current), tag and tag + "marks"
        )
        if key:  # the first one fills the caches of the open
            rows["completion"].append(done)
            rows["documentSymbol"].append(sym)
            rows["diagnostics"].append(diag)
            rows["text"].append(join)
            rows["marks"].append(marks)
    loop.close()
    out = {name: statistics.median(values) for name, values in rows.items()}
    out["MB"] = len(text.encode()) / 1e6
    return out


def main(argv: list[str]) -> int:
    """Print the table for the turns in ``argv`` (default 10 and 5,000)."""
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    compile_packages()
    turns = [int(a) for a in argv] or [10, 5000]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"median CPU ms per keystroke of {KEYS}, typed at the end of the exchange")
    rows = {t: measure(t) for t in turns}
    names = ["completion", "documentSymbol", "diagnostics", "text", "marks"]
    print("| turns | MB | " + " | ".join(names) + " | total |")
    print("|---" * (len(names) + 3) + "|")
    for t, row in rows.items():
        total = sum(row[n] for n in names)
        cells = " | ".join(f"{row[n]:.1f}" for n in names)
        print(f"| {t:,} | {row['MB']:.2f} | {cells} | {total:.1f} |")
    small, big = rows[turns[0]], rows[turns[-1]]
    ratios = []
    for n in [*names, "total"]:
        a = sum(small[x] for x in names) if n == "total" else small[n]
        b = sum(big[x] for x in names) if n == "total" else big[n]
        ratio = b / max(a, 0.05)
        ratios.append(f"{ratio:.1f}× {'ok' if ratio <= GOAL else 'OVER'}")
    print(f"| ÷ | | {' | '.join(ratios)} |")
    print("\nmedian wall ms of the same runs")
    for t in turns:
        cells = " | ".join(f"{statistics.median(WALL[f'{t}:{n}']):.1f}" for n in names)
        print(f"| {t:,} | {rows[t]['MB']:.2f} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
