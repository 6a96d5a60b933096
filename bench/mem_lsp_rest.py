"""The language server's memory at rest, in process, and what holds it.

Opens a long conversation (:func:`bench._long_docs.conversation`, 5,000 turns
≈ 19 MB by default) in a real server object as ``initialize`` makes it
(``FastWorkspace``), in a temporary git repository whose snapshot is the
document before the typed line, so the "will be sent" marks compare with a
real snapshot file (``SnapshotCache``). Then: the open's diagnostics run
(component problems + marks, as ``diagnostics.publish`` runs them, without the
worker thread) and ``documentSymbol``; 15 keystrokes with a run and an outline
refresh after every fifth. After ``gc.collect()``, prints the RSS above the
process before the open, ÷ the document's UTF-8 size, after the open and after
the keystrokes, and the ``str`` objects over 1 M characters still alive with
the types of what refers to them. Between the two, the CPU ms of the first
requests after the open that need the whole text (folding ranges, then a
code action and a hover at the typed line, as their handlers read it): the
first joins the text when the open's ``str`` was let go.

With ``--wire``, also the real ``agent-doc-lsp`` over stdio on the same
repository (:func:`bench._long_lsp.measure_server`): its peak (reached in
the open), its RSS after the open's run and first outline and at rest after
the keystrokes, above the idle server, and the time of that first outline.

Run: ``.venv/bin/python bench/mem_lsp_rest.py [--wire] [TURNS]``.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._long_docs import conversation
from bench._long_docs import type_line

KEYS = 15
BIG = 1_000_000


def rss_mb() -> float:
    """This process's resident set, in MB."""
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return 0.0


def at_rest() -> float:
    """RSS after a full collection."""
    gc.collect()
    return rss_mb()


def big_strings() -> list[tuple[str, list[str]]]:
    """Each ``str`` over :data:`BIG` characters reachable from a tracked
    container: its size and the types of its referrers."""
    found: dict[int, Any] = {}
    for obj in gc.get_objects():
        for ref in gc.get_referents(obj):
            if isinstance(ref, str) and len(ref) > BIG:
                found[id(ref)] = ref
    rows = []
    for text in found.values():
        owners = []
        for owner in gc.get_referrers(text):
            if owner is found:
                continue
            name = type(owner).__name__
            if isinstance(owner, tuple) and len(owner) < 6:
                name += "(" + ",".join(type(x).__name__ for x in owner) + ")"
            owners.append(name)
        size = f"{sys.getsizeof(text) / 1e6:.1f} MB ({len(text):,} chars)"
        rows.append((size, owners))
    return rows


def _run(server: Any, uri: str, loop: asyncio.AbstractEventLoop) -> None:
    """One debounced diagnostics run (providers included), then an outline."""
    from agent_doc_lsp.features import diagnostics
    from agent_doc_lsp.features import symbols

    reading = diagnostics.read(server, uri)
    assert reading is not None
    result = diagnostics.check(server, reading)
    diagnostics.settle(server, uri, reading, result)
    loop.run_until_complete(symbols.symbols(server, uri))


def _first_requests(server: Any, uri: str, line: int, column: int) -> None:
    """Print the CPU ms of folding, code action and hover after the open."""
    import time

    from agent_doc.editor import folds
    from agent_doc.editor import hover
    from agent_doc.editor import quick_fixes

    pos = types.Position(line=line, character=column)
    timed = []
    for name in ("folding", "code action", "hover"):
        start = time.process_time()
        _doc, index = server.document(uri)
        if name == "folding":
            folds(index.text)
        elif name == "code action":
            at = index.offset(pos)
            quick_fixes(index.text, at, at)
        else:
            hover(index.text, index.offset(pos), server.configs_for(uri)[0])
        timed.append(f"{name} {(time.process_time() - start) * 1000:.1f} ms")
    print("first requests after the open: " + ", ".join(timed))


def main(argv: list[str]) -> int:
    """Print the measures for the turns in ``argv`` (default 5,000)."""
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    from agent_doc.store.state import StateStore
    from agent_doc_lsp.fast_document import FastWorkspace
    from agent_doc_lsp.server import create_server

    wire = "--wire" in argv
    argv = [a for a in argv if a != "--wire"]
    turns = int(argv[0]) if argv else 5000
    snapshot, _answer = conversation(turns)
    text = type_line(snapshot)  # the person's next question
    size = len(text.encode()) / 1e6
    tmp = Path(tempfile.mkdtemp())
    subprocess.run(["git", "init", "-q", str(tmp)], check=True)
    doc = tmp / "doc.md"
    doc.write_text(text, "utf-8")
    StateStore.for_document(doc).save_snapshot(doc, snapshot)
    del snapshot
    server = create_server()
    server.protocol._workspace = FastWorkspace(None)  # as initialize makes it
    server.protocol.client_capabilities = types.ClientCapabilities()
    loop = asyncio.new_event_loop()
    server.loop = loop
    uri = doc.as_uri()
    line = text[: text.rindex("<!-- /agent:exchange")].count("\n") - 1
    column = len(text.split("\n")[line])  # ASCII: UTF-16 units = characters
    item = types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
    del text
    base = at_rest() - sys.getsizeof(item.text) / 2**20  # the editor's copy
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"document {size:.2f} MB (UTF-8), {turns} turns")
    server.workspace.put_text_document(item)
    del item
    _run(server, uri, loop)
    opened = at_rest() - base
    print(f"after the open and its run: {opened:.0f} MB = {opened / size:.1f}×")
    _first_requests(server, uri, line, column)
    for key in range(KEYS):
        pos = types.Position(line=line, character=column + key)
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(uri=uri, version=key + 2),
            types.TextDocumentContentChangePartial(
                range=types.Range(start=pos, end=pos), text="x"
            ),
        )
        if key % 5 == 4:
            _run(server, uri, loop)
    rest = at_rest() - base
    print(f"after {KEYS} keystrokes and 3 runs: {rest:.0f} MB = {rest / size:.1f}×")
    for found, owners in big_strings():
        print(f"  str {found}: held by {', '.join(owners)}")
    loop.close()
    if wire:
        _wire(tmp, doc, size)
    return 0


def _wire(root: Path, doc: Path, size: float) -> None:
    """The real server over stdio: peak and rest above idle, ÷ the document."""
    from bench._long_lsp import measure_server

    server = str(Path(sys.executable).with_name("agent-doc-lsp"))
    row = measure_server(server, root, doc, doc.read_text("utf-8"))
    idle = row["server idle MB"]
    print(f"over stdio, the first documentSymbol (after the open's run): "
          f"{row['documentSymbol first']:.1f} ms")  # fmt: skip
    for name in ("server open peak MB", "server opened MB", "server peak MB",
                 "server rest MB"):  # fmt: skip
        above = row[name] - idle
        print(f"over stdio, {name[7:]}: {row[name]:.0f} MB, above idle "
              f"{above:.0f} MB = {above / size:.1f}×")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
