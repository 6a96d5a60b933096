"""Hostile documents and socket messages never break agent-doc.

Every case of ``tests/data/hostile/`` plus the large generated ones is fed to
the real CLI (``diff``, ``write``, ``patch``, ``outline``, ``preflight
--no-wait``; one fresh project per operation) and to the real language server
(``didOpen`` + ``documentSymbol`` / ``foldingRange`` + a socket ``read``).

* the CLI exits with a clear one-line error (no traceback, no signal) or
  succeeds legitimately;
* on failure the document, snapshot, CRDT state and registry are byte-identical
  (``write`` keeps its response in ``pending/`` by design, so it is not lost);
* no operation hangs: each ends within :data:`LIMIT_S` even on a loaded CI
  machine (a bound, not a speed target: the times are reported in
  docs/reliability.md, speed targets live in bench/);
* the server answers a follow-up request after every case.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_hash
from tests.reliability._server import alive
from tests.reliability._server import ask
from tests.reliability._server import open_session
from tests.reliability._server import request
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import run_cli
from tests.reliability._util import tree_bytes

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
LIMIT_S = 60.0
RESPONSE = "<!-- patch:exchange -->\nHOSTILE-REPLY-91\n<!-- /patch:exchange -->\n"
FM = "---\nagent_doc_format: template\n---\n"


def _fifty_mb() -> bytes:
    line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusm\n"
    body = line * (50 * 1024 * 1024 // len(line))
    return (
        FM + body + "<!-- agent:exchange -->\nhi\n<!-- /agent:exchange -->\n"
    ).encode()


def _many_components() -> bytes:
    parts = [f"<!-- agent:c{i} -->\nx\n<!-- /agent:c{i} -->\n" for i in range(100_000)]
    return (FM + "".join(parts)).encode()


def _deep_components() -> bytes:
    depth = 10_000
    opens = "".join(f"<!-- agent:d{i} -->\n" for i in range(depth))
    closes = "".join(f"<!-- /agent:d{i} -->\n" for i in reversed(range(depth)))
    return (FM + opens + "core\n" + closes).encode()


def _huge_line() -> bytes:
    return (FM + "x" * (10 * 1024 * 1024) + "\n").encode()


def _nested_fences() -> bytes:
    return (FM + "".join("`" * (3 + i % 40) + "\n" for i in range(5_000))).encode()


GENERATED: dict[str, Callable[[], bytes]] = {
    "gen-50mb.md": _fifty_mb,
    "gen-100k-components.md": _many_components,
    "gen-10k-deep-components.md": _deep_components,
    "gen-10mb-line.md": _huge_line,
    "gen-5k-fences.md": _nested_fences,
}


def _corpus() -> dict[str, bytes]:
    cases = {
        p.name: p.read_bytes()
        for p in sorted(HOSTILE.iterdir())
        if p.is_file() and p.name != "README.md"
    }
    cases.update({name: make() for name, make in GENERATED.items()})
    return cases


OPS: dict[str, tuple[list[str], str | None]] = {
    "diff": (["diff", "{f}"], None),
    "outline": (["outline", "{f}"], None),
    "preflight": (["preflight", "--no-wait", "{f}"], None),
    "patch": (["patch", "{f}", "status", "HOSTILE-STATUS-17"], None),
    "write": (["write", "{f}"], RESPONSE),
}


def _guarded(root: Path, doc: Path, op: str) -> dict[str, bytes]:
    """The bytes that must not change when ``op`` fails."""
    files = tree_bytes(root)
    # write keeps its response pending (so it is never lost); logs and the
    # agent status indicator are not document state
    skip = ("pending/", "logs/", "status/") if op == "write" else ("logs/", "status/")
    return {k: v for k, v in files.items() if not any(s in k for s in skip)}


def _run_case(base: Path, name: str, data: bytes, op: str) -> tuple[str, str, float]:
    root = make_project(base / f"{name}-{op}")
    doc = root / "doc.md"
    doc.write_bytes(data)
    store = StateStore(root)
    store.save_snapshot(doc, "an older snapshot\n")
    (root / ".agent-doc" / "sessions.json").write_text('{"sessions": {}}\n')
    before = _guarded(root, doc, op)
    args, stdin = OPS[op]
    started = time.monotonic()
    done = run_cli(
        [a.format(f=doc) for a in args], cwd=root, stdin=stdin, timeout=LIMIT_S * 2
    )
    took = time.monotonic() - started
    err = done.stderr.decode("utf-8", "replace")
    where = f"{name} / {op}"
    assert done.returncode >= 0, f"{where}: killed by signal {-done.returncode}"
    assert "Traceback" not in err, f"{where}: traceback\n{err[-2000:]}"
    if done.returncode != 0:
        assert err.strip(), f"{where}: failed without an error message"
        assert _guarded(root, doc, op) == before, f"{where}: failed but wrote"
        outcome = "error"
    else:
        outcome = "ok"
        if op == "write":
            assert doc.read_bytes().count(b"HOSTILE-REPLY-91") == 1, where
    assert took < LIMIT_S, f"{where}: took {took:.1f} s"
    assert doc_hash(doc)  # the document path still resolves
    return f"{op}:{outcome}", err.strip().splitlines()[-1] if err.strip() else "", took


LARGE_WRITES = ("gen-100k-components.md", "gen-10k-deep-components.md")
"""Once > 60 s each (``_limit_lines`` re-parsed the document per component)."""


@pytest.mark.parametrize("name", LARGE_WRITES)
def test_write_on_many_components_is_bounded(tmp_path: Path, name: str) -> None:
    """``agent-doc write`` into 100,000 / 10,000-deep components: lands once, no hang."""
    root = make_project(tmp_path / "p")
    doc = root / "doc.md"
    doc.write_bytes(GENERATED[name]())
    started = time.monotonic()
    done = run_cli(["write", str(doc)], cwd=root, stdin=RESPONSE, timeout=LIMIT_S)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    assert b"Traceback" not in done.stderr
    assert doc.read_bytes().count(b"HOSTILE-REPLY-91") == 1
    assert took < LIMIT_S, f"{name}: took {took:.1f} s"
    record("large-write", case=name, seconds=round(took, 2))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_hostile_documents_through_the_cli(tmp_path: Path) -> None:
    """Every hostile case × every command: clear error or success, bounded, no write."""
    corpus = _corpus()
    assert len(corpus) >= 40
    jobs = [(name, op) for name in corpus for op in OPS]
    slowest: tuple[float, str] = (0.0, "")
    outcomes: dict[str, int] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            pool.submit(_run_case, tmp_path, name, corpus[name], op): (name, op)
            for name, op in jobs
        }
        for future, (name, op) in futures.items():
            outcome, _msg, took = future.result()
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            slowest = max(slowest, (took, f"{name} / {op}"))
    record(
        "hostile-cli",
        cases=len(corpus),
        runs=len(jobs),
        outcomes=outcomes,
        slowest_s=round(slowest[0], 2),
        slowest=slowest[1],
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_hostile_documents_through_the_server(
    client: LanguageClient, tmp_path: Path
) -> None:
    """didOpen of every case + document requests: the server answers and stays up."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    sock = reg["socket"]
    corpus = _corpus()
    slowest: tuple[float, str] = (0.0, "")
    errors = 0
    for i, (name, data) in enumerate(corpus.items()):
        doc = root / f"case{i}.md"
        doc.write_bytes(data)
        text = data.decode("utf-8", "replace").replace("\0", "\ufffd")
        uri = doc.as_uri()
        started = time.monotonic()
        editor.open(uri, text)
        ident = types.TextDocumentIdentifier(uri=uri)
        for call in (
            client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=ident)
            ),
            client.text_document_folding_range_async(
                types.FoldingRangeParams(text_document=ident)
            ),
        ):
            try:
                await asyncio.wait_for(call, LIMIT_S * 3)
            except JsonRpcException:
                errors += 1  # an error answer is fine; a dead server is not
        reply = await alive(sock, doc)
        assert reply["open"] is True, name
        assert reply["text"] == text, name
        took = time.monotonic() - started
        slowest = max(slowest, (took, name))
        editor.close(uri)
        doc.unlink()
    assert (await alive(sock, root / "none.md"))["open"] is False
    record(
        "hostile-server",
        cases=len(corpus),
        error_answers=errors,
        slowest_s=round(slowest[0], 2),
        slowest=slowest[1],
    )


def _socket_cases(root: Path, outside: Path) -> dict[str, bytes]:
    folder = root / "a-folder.md"
    folder.mkdir()
    (root / "escape.md").symlink_to(outside)
    (root / "loop.md").symlink_to(root / "loop.md")
    return {
        "bad json": b"{not json\n",
        "json array": b"[1, 2, 3]\n",
        "json string": b'"write"\n',
        "invalid utf-8": b'{"type": "read", "file": "\xff\xfe"}\n',
        "unknown type": request(type="format-disk"),
        "type not a string": request(type=["write"]),
        "missing file": request(type="write", response="x"),
        "file not a string": request(type="read", file=42),
        "path outside": request(type="write", file=str(outside), response="x"),
        "dotdot outside": request(
            type="read", file=str(root / ".." / ".." / outside.name)
        ),
        "symlink escape": request(
            type="write", file=str(root / "escape.md"), response="x"
        ),
        "symlink loop": request(type="read", file=str(root / "loop.md")),
        "a directory": request(type="write", file=str(folder), response="x"),
        "relative path": request(type="read", file="doc.md"),
        "nul in path": request(type="read", file=str(root) + "/a\0b.md"),
        "response not a string": request(
            type="write", file=str(root / "doc.md"), response=None
        ),
        "patch bad component": request(
            type="patch", file=str(root / "doc.md"), component="-bad", content="x"
        ),
        "huge nesting": b'{"type": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
    }


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_hostile_socket_messages(client: LanguageClient, tmp_path: Path) -> None:
    """Malformed or out-of-bounds requests get ``ok: false``; the server stays up."""
    root = make_project(tmp_path / "ws")
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n")
    secret = outside.read_bytes()
    editor, reg = await open_session(client, root)
    sock = reg["socket"]
    doc = root / "doc.md"
    doc.write_text(FM + "<!-- agent:exchange -->\nhi\n<!-- /agent:exchange -->\n")
    editor.open(doc.as_uri(), doc.read_text())
    # didOpen travels over stdio, the socket read over the socket: wait until
    # the server has the document before the first hostile message.
    deadline = asyncio.get_running_loop().time() + 10
    while not (await alive(sock, doc))["open"]:
        assert asyncio.get_running_loop().time() < deadline, "didOpen never arrived"
        await asyncio.sleep(0.02)
    cases = _socket_cases(root, outside)
    for name, line in cases.items():
        reply = await ask(sock, line)
        assert reply.get("ok") is False, f"{name}: {reply}"
        assert isinstance(reply.get("error"), str), name
        assert reply["error"], name
        assert (await alive(sock, doc))["open"] is True, name
    # a line longer than the server's limit (16 MB): refused, server up
    big = b'{"type": "read", "file": "' + b"a" * (17 * 1024 * 1024) + b'"}\n'
    try:
        reply = await ask(sock, big, timeout=30)
    except (ConnectionResetError, BrokenPipeError):
        reply = {"ok": False, "error": "connection reset"}  # refused mid-send
    assert reply.get("ok") is False
    assert (await alive(sock, doc))["open"] is True
    assert outside.read_bytes() == secret
    assert editor.text(doc.as_uri()) == doc.read_text()
    assert not (root / "ab.md").exists()
    record("hostile-socket", cases=len(cases) + 1)
