"""Several builds of the sync server under bench_share's typing load, interleaved.

Issue 37 item 5: what pycrdt-websocket and the websocket layer allow. Each
``--variant LABEL,PYTHON,LAYER`` is a server process on a project of its own:
``LAYER`` ``uvicorn`` is ``agent-doc serve`` as shipped, ``websockets`` is the
same rooms behind the websockets library's own server
(``bench/serve_websockets.py``); ``PYTHON`` is the interpreter (a venv with a
patched pycrdt-websocket, say). Every round types ``--rooms`` fresh rooms × 3
Yjs JS peers at 10 chars/s for ``--seconds`` s on each variant in turn (the
order rotates each round) and on y-websocket's server, so each variant's CPU
is compared with the reference's in the same round. CPU is the process's
CPU seconds over the load (user + system, split between the main thread and
the others), not wall time. Prints each load, then the medians.

Run: ``.venv/bin/python bench/serve_variants.py --rooms 50 --seconds 10
--rounds 3 --variant a,.venv/bin/python,uvicorn --variant
c,.venv/bin/python,websockets``.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bench_share
from bench._fixtures import compile_packages
from bench.profile_serve import fill
from bench.profile_serve import thread_cpu
from tests.share.rooms import token_of
from tests.share.yjs_node import ensure_yjs

HERE = Path(__file__).resolve().parent
REF = "y-websocket"


@dataclass
class Variant:
    """One server build under test."""

    label: str
    python: str
    layer: str
    rooms: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    server: bench_share.Server | None = None

    def command(self, root: Path) -> list[str]:
        """The process to start for this variant in ``root``."""
        if self.layer == "websockets":
            return [*self.python.split(), str(HERE / "serve_websockets.py"), str(root)]
        return [
            *self.python.split(),
            "-m",
            "agent_doc.cli.entry",
            "serve",
            "--port",
            "0",
        ]

    def start(self) -> bench_share.Server:
        """Start the server on a project of its own; its ``Server``."""
        root, self.rooms, _big = bench_share.make_project()
        self.proc = subprocess.Popen(
            self.command(root),
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        )
        url = listening_url(self.proc)
        self.server = bench_share.Server(
            self.label, url, token_of(root), self.proc.pid, self.stop
        )
        return self.server

    def stop(self) -> None:
        """SIGINT (rooms flushed), then wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def listening_url(proc: subprocess.Popen[str], timeout: float = 30) -> str:
    """The ``ws://host:port`` a started server says it listens on (its stderr
    is drained on a thread from then on)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            raise RuntimeError(f"server exited: {proc.args!r}")
        found = re.search(r"listening on (ws://\S+)/<session id>", line)
        if found:
            return found.group(1)
    raise RuntimeError(f"no listening line from {proc.args!r}")


def measure(
    server: bench_share.Server, rooms: list[str], modules: Path
) -> dict[str, Any]:
    """One load on ``server``; its figures with CPU seconds by thread."""
    loadavg = os.getloadavg()[0]
    before, cpu0 = thread_cpu(server.pid)[0], server.cpu_s()
    began = time.monotonic()
    got = bench_share.load(server, rooms, modules)
    wall = time.monotonic() - began
    after, cpu1 = thread_cpu(server.pid)[0], server.cpu_s()
    # the other threads' share from the process's total: a worker thread
    # that ended during the load is no longer in /proc/PID/task
    got.update(
        cpu_s=cpu1 - cpu0,
        main_s=after - before,
        others_s=(cpu1 - cpu0) - (after - before),
        loadavg=loadavg,
        wall_s=wall,
        over10=sum(lag > 10 for lag in got["lags"]),
    )
    print(f"{server.name:>24}: load {loadavg:4.1f}  {got['arrived']}/{got['expected']}  "
          f"p50 {got['p50']:6.1f} p99 {got['p99']:7.1f} ms  >10 ms {got['over10']:5d}  CPU {got['cpu_s']:5.2f} s "
          f"(main {got['main_s']:.2f}, others {got['others_s']:.2f}) in {wall:.1f} s wall",
          flush=True)  # fmt: skip
    return got


def parse_variant(text: str) -> Variant:
    """``LABEL,PYTHON,LAYER`` (LAYER: uvicorn or websockets)."""
    label, python, layer = text.split(",")
    if layer not in ("uvicorn", "websockets"):
        raise SystemExit(f"serve_variants: unknown layer {layer!r}")
    return Variant(label, python, layer)


def summary(variants: list[Variant], figures: dict[str, list[dict[str, Any]]]) -> None:
    """The medians per variant, each CPU against y-websocket's in its rounds."""
    ref = figures[REF]
    print("\n| variant | CPU s (main + others) | wall s | y-websocket CPU s | "
          "CPU ratio | p50 / p99 ms | lags > 10 ms | delivered |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for v in [*variants, Variant(REF, "", "")]:
        runs = figures[v.label]
        ratios = [
            f["cpu_s"] / max(r["cpu_s"], 1e-9) for f, r in zip(runs, ref, strict=True)
        ]

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return float(statistics.median(f[key] for f in runs))

        delivered = "all" if all(f["arrived"] == f["expected"] for f in runs) else "NO"
        print(f"| {v.label} | {med('cpu_s'):.2f} ({med('main_s'):.2f} + "
              f"{med('others_s'):.2f}) | {med('wall_s'):.1f} | "
              f"{statistics.median(r['cpu_s'] for r in ref):.2f} | "
              f"**{statistics.median(ratios):.2f}×** ({', '.join(f'{x:.1f}' for x in ratios)}) | "
              f"{med('p50'):.1f} / {med('p99'):.1f} | {med('over10'):.0f} | "
              f"{delivered} |")  # fmt: skip


def main() -> None:
    """Run the rounds and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", action="append", type=parse_variant, default=[])
    args = parser.parse_args()
    variants: list[Variant] = args.variant or [
        Variant("a serve", sys.executable, "uvicorn")
    ]
    bench_share.LOAD_S = args.seconds
    bench_share.ROOMS = args.rooms * args.rounds  # fresh rooms for every round
    compile_packages()
    modules = ensure_yjs()
    ref = bench_share.start_y_websocket(modules)
    figures: dict[str, list[dict[str, Any]]] = {v.label: [] for v in variants}
    figures[REF] = []
    print(f"{args.rooms} rooms × {bench_share.PEERS_PER_ROOM} peers, "
          f"{args.seconds:.0f} s, {args.rounds} rounds")  # fmt: skip
    try:
        for v in variants:
            v.start()
        anyio.run(fill, ref, variants[0].rooms)  # y-websocket keeps rooms in memory
        for n in range(args.rounds):
            span = slice(n * args.rooms, (n + 1) * args.rooms)
            order = variants[n % len(variants) :] + variants[: n % len(variants)]
            for v in order:
                assert v.server is not None
                figures[v.label].append(measure(v.server, v.rooms[span], modules))
            ref_rooms = variants[0].rooms[span]
            figures[REF].append(measure(ref, ref_rooms, modules))
    finally:
        ref.stop()
        for v in variants:
            v.stop()
    summary(variants, figures)


if __name__ == "__main__":
    main()
