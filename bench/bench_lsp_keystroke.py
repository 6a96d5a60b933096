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

``--case`` picks the keystroke (:data:`CASES`): a letter (the default), Enter
splitting a prose line, Enter at the end of one, or the first letter typed
into the line an Enter made. ``--breakdown`` prints where the requests' CPU
goes instead (the chunks' join, outline scan, line index, symbol JSON,
diagnostics scan and conversion), timed inside the functions.

Run: ``.venv/bin/python bench/bench_lsp_keystroke.py [--case C] [--breakdown]
[TURNS ...]`` (it compiles the packages' bytecode first).
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


PIECES: dict[str, list[float]] = {}
"""CPU ms (of the thread running it) of each piece timed by :func:`_timed`,
per measured keystroke."""


CASES = ("type", "split", "enter", "newline")
"""What each measured keystroke is: ``type`` a letter typed at the end of the
last question; ``split`` Enter in the middle of a prose line of it (each one
splitting the tail of the one before); ``enter`` Enter at the end of a prose
line of it (before the component's closing marker), a letter typed into the
new line after each, not measured; ``newline`` that letter, the first one
typed into the empty line an Enter made (the Enter not measured)."""

PROSE = "word " * 15 + "end"
"""The prose line ``split``, ``enter`` and ``newline`` type into."""


def _edits(case: str, line: int) -> list[tuple[types.Position, str, bool]]:
    """``(where, text, measured)`` of each change of ``case``, the first one
    warming the caches of the open (``line``: the typed line)."""
    out: list[tuple[types.Position, str, bool]] = []
    for key in range(KEYS + 1):
        if case == "type":
            out.append((types.Position(line=line, character=key), "x", key > 0))
        elif case == "split":
            out.append((types.Position(line=line + key, character=5), "\n", key > 0))
        else:  # Enter at the end of the last line typed, then a letter in it
            end = len(PROSE) if key == 0 else 1
            enter = types.Position(line=line + key, character=end)
            out.append((enter, "\n", case == "enter" and key > 0))
            letter = types.Position(line=line + key + 1, character=0)
            out.append((letter, "w", case == "newline" and key > 0))
    return out


def measure(turns: int, case: str = "type") -> dict[str, float]:
    """Median CPU ms of each piece of work after a keystroke of ``case``
    (:data:`CASES`), at ``turns``."""
    from agent_doc.editor.unsent import UnsentBaseline
    from agent_doc_lsp.features import diagnostics
    from agent_doc_lsp.features import symbols
    from agent_doc_lsp.features.completion import completion_list as complete

    snapshot, _answer = conversation(turns)
    text = type_line(snapshot, "" if case == "type" else PROSE)
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

    for pos, typed, measured in _edits(case, line):
        version += 1
        marks_before = {name: len(values) for name, values in PIECES.items()}
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=pos, end=pos), text=typed
            ),
        )
        tag = f"{case}:{turns}:" if measured else ""
        after = types.Position(line=pos.line, character=pos.character + 1)
        if typed == "\n":
            after = types.Position(line=pos.line + 1, character=0)
        asked = types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=after
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
        if not measured:  # the pieces timed count the measured changes only
            for name, values in PIECES.items():
                del values[marks_before.get(name, 0) :]
        if measured:
            rows["completion"].append(done)
            rows["documentSymbol"].append(sym)
            rows["diagnostics"].append(diag)
            rows["text"].append(join)
            rows["marks"].append(marks)
    loop.close()
    out = {name: statistics.median(values) for name, values in rows.items()}
    out["MB"] = len(text.encode()) / 1e6
    return out


def _timed(owner: Any, name: str, bucket: str) -> None:
    """Wrap ``owner.name`` so its thread CPU time adds to ``bucket``."""
    inner = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            PIECES.setdefault(bucket, []).append((time.thread_time() - start) * 1000)

    setattr(owner, name, wrapper)


def breakdown(turns: int, case: str) -> dict[str, float]:
    """Median CPU ms per measured keystroke of each piece of the requests'
    work (the chunks' join, outline scan, line index, JSON encoding,
    diagnostics scan and conversion), at ``turns``."""
    from agent_doc.document.textlike import ChunkView
    from agent_doc_lsp.features import diagnostics
    from agent_doc_lsp.features import symbols
    from agent_doc_lsp.server import AgentDocLanguageServer
    from agent_doc_lsp.symbol_json import SymbolEncoder

    _timed(symbols, "outline_parts", "outline scan")
    _timed(SymbolEncoder, "encode", "symbol JSON")
    _timed(diagnostics, "problems", "diagnostics scan")
    _timed(diagnostics.convert, "diagnostic", "diagnostics convert")
    _timed(ChunkView, "__str__", "join")
    maker = AgentDocLanguageServer.line_index_maker

    def timed_maker(self: Any, uri: str, text: Any) -> Any:
        make = maker(self, uri, text)

        def run() -> Any:
            start = time.thread_time()
            try:
                return make()
            finally:
                took = (time.thread_time() - start) * 1000
                PIECES.setdefault("line index", []).append(took)

        return run

    AgentDocLanguageServer.line_index_maker = timed_maker  # type: ignore[method-assign]
    PIECES.clear()
    measure(turns, case)
    return {k: sum(v) / KEYS for k, v in PIECES.items()}


def main(argv: list[str]) -> int:
    """Print the table for the turns in ``argv`` (default 10 and 5,000);
    ``--case C`` picks the keystroke (:data:`CASES`, default ``type``);
    ``--breakdown`` prints instead the mean CPU ms of each piece of work per
    measured keystroke."""
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    compile_packages()
    case = "type"
    if "--case" in argv:
        at = argv.index("--case")
        case = argv[at + 1]
        del argv[at : at + 2]
    if "--breakdown" in argv:
        argv.remove("--breakdown")
        for t in [int(a) for a in argv] or [10, 5000]:
            pieces = breakdown(t, case)
            cells = ", ".join(f"{k} {v:.1f}" for k, v in sorted(pieces.items()))
            print(f"{case} at {t:,} turns, mean CPU ms per change: {cells}")
        return 0
    turns = [int(a) for a in argv] or [10, 5000]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"median CPU ms per keystroke of {KEYS}, case {case!r}")
    rows = {t: measure(t, case) for t in turns}
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
        cells = " | ".join(
            f"{statistics.median(WALL[f'{case}:{t}:{n}']):.1f}" for n in names
        )
        print(f"| {t:,} | {rows[t]['MB']:.2f} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
