"""Benchmark the live patch round trip: CLI process start → edit in the editor.

A real server (stdio) has a 100 KB session document open in an editor-like
client (the test client of ``tests/lsp/editor_client.py``). Each sample starts
``agent-doc patch DOC status CONTENT`` as a new process and stops the clock
when the client has applied the resulting workspace edit to its buffer (the
edit's ``didChange`` is sent at that moment). The CLI's own exit is timed too.
Target: median ≤ 150 ms; issue 17: ``agent-doc write`` round trip ≤ 2× the
interpreter's floor, ``python -c pass`` from the same venv, timed in the same
run (interleaved with the samples).

Run: ``.venv/bin/python bench/bench_patch_roundtrip.py [--runs N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor

TARGET_MS = 150.0
SERVER = [sys.executable, "-m", "agent_doc_lsp"]
CLI = str(Path(sys.executable).with_name("agent-doc"))


def make_document(size: int = 100_000) -> str:
    """A template session document of about ``size`` characters."""
    head = (
        "---\nagent_doc_format: template\n---\n# Bench\n\n"
        "<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\n"
        "<!-- agent:exchange -->\n"
    )
    line = "lorem ipsum dolor sit amet, consectetur adipiscing elit 😀\n"
    body = line * ((size - len(head)) // len(line))
    return head + body + "<!-- /agent:exchange -->\n"


RESPONSE = "<!-- patch:status -->\n{marker}\n<!-- /patch:status -->\n"


async def run_cli(doc: Path, verb: str, marker: str) -> None:
    """Run ``agent-doc patch`` or ``agent-doc write`` for ``marker``."""
    if verb == "patch":
        args, stdin = ["patch", str(doc), "status", marker], b""
    else:
        args, stdin = ["write", str(doc)], RESPONSE.format(marker=marker).encode()
    proc = await asyncio.create_subprocess_exec(
        CLI, *args, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(proc.communicate(stdin), 30)
    if proc.returncode != 0:
        raise SystemExit(f"agent-doc {verb} failed: {err.decode()}")


async def python_pass() -> float:
    """Wall ms of ``python -c pass`` from the same venv (the interpreter's floor)."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await asyncio.wait_for(proc.wait(), 30)
    return (time.perf_counter() - start) * 1000


async def run_socket(doc: Path, socket: str, marker: str) -> None:
    """Send the ``patch`` request straight to the server's socket."""
    request = {"type": "patch", "file": str(doc), "component": "status",
               "content": marker + "\n"}  # fmt: skip
    reader, writer = await asyncio.open_unix_connection(socket, limit=2**26)
    writer.write(json.dumps(request).encode() + b"\n")
    reply = json.loads(await asyncio.wait_for(reader.readline(), 30))
    writer.close()
    if not reply.get("ok"):
        raise SystemExit(f"socket patch failed: {reply}")


async def one_sample(
    editor: Editor, doc: Path, marker: str, send: Callable[[str], Awaitable[None]]
) -> tuple[float, float]:
    """Return (ms until the edit is in the buffer, ms until the sender finished)."""
    applied = asyncio.Event()
    handle = editor.handle_apply_edit
    stamp: list[float] = []

    def on_apply(
        params: types.ApplyWorkspaceEditParams,
    ) -> types.ApplyWorkspaceEditResult:
        result = handle(params)
        if marker in editor.text(doc.as_uri()):
            stamp.append(time.perf_counter())
            applied.set()
        return result

    editor.client.protocol.fm.features[types.WORKSPACE_APPLY_EDIT] = on_apply
    start = time.perf_counter()
    await send(marker)
    done = time.perf_counter()
    await asyncio.wait_for(applied.wait(), 10)
    return (stamp[0] - start) * 1000, (done - start) * 1000


async def main(runs: int) -> int:
    from _fixtures import compile_packages

    compile_packages()
    with tempfile.TemporaryDirectory(prefix="ad-bench-") as tmp:
        project = Path(tmp)
        (project / ".agent-doc").mkdir()
        doc = project / "doc.md"
        text = make_document()
        doc.write_text(text, "utf-8")
        client = await ClientServerConfig(server_command=SERVER).start(devtools=None)
        try:
            editor = await start_editor(client, root=project)
            editor.open(doc.as_uri(), text)
            servers = project / ".agent-doc" / "servers"
            await editor.wait_for(lambda: any(servers.glob("*.json")), 10, "server")
            socket = json.loads(next(servers.glob("*.json")).read_text())["socket"]
            senders: dict[str, Callable[[str], Awaitable[None]]] = {
                "agent-doc patch (CLI process)": lambda m: run_cli(doc, "patch", m),
                "agent-doc write (CLI process)": lambda m: run_cli(doc, "write", m),
                "socket patch (server only)": lambda m: run_socket(doc, socket, m),
            }
            results: dict[str, list[tuple[float, float]]] = {}
            floor: list[float] = []
            for name, send in senders.items():
                await one_sample(editor, doc, f"warm {name}", send)
                results[name] = []
                for n in range(runs):
                    floor.append(await python_pass())
                    results[name].append(
                        await one_sample(editor, doc, f"{name} {n}", send)
                    )
        finally:
            await asyncio.wait_for(client.shutdown_session(), 10)
            await client.stop()
    size_kb = len(text.encode()) / 1024
    print(f"live patch round trip, {size_kb:.0f} KB document, {runs} runs each")
    print(f"{'start -> edit applied in the buffer':<36} {'median':>8} {'p90':>8} {'max':>8}"
          f"  {'sender done':>11}")  # fmt: skip
    for name, samples in results.items():
        applied = [s[0] for s in samples]
        finished = statistics.median(s[1] for s in samples)
        p90 = (
            statistics.quantiles(applied, n=10)[-1] if len(applied) > 1 else applied[0]
        )
        print(
            f"{name:<36} {statistics.median(applied):8.1f} {p90:8.1f} "
            f"{max(applied):8.1f}  {finished:9.1f} ms"
        )
    base = statistics.median(floor)
    print(f"{'python -c pass (same runs)':<36} {base:8.1f}")
    for name in ("agent-doc write (CLI process)", "agent-doc patch (CLI process)"):
        ratio = statistics.median(s[0] for s in results[name]) / base
        print(f"ratio {name} / python -c pass: {ratio:.2f}× (goal ≤ 2×)")
    median = statistics.median(s[0] for s in results["agent-doc patch (CLI process)"])
    verdict = "OK" if median <= TARGET_MS else "OVER TARGET"
    print(f"target: agent-doc patch median <= {TARGET_MS:.0f} ms -> {verdict}")
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    raise SystemExit(asyncio.run(main(parser.parse_args().runs)))
