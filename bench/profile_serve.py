"""Profile ``agent-doc serve`` under bench_share's typing load, beside y-websocket.

``bench/bench_share.py``'s load (c) — ``--rooms`` rooms × 3 Yjs JS peers
typing 10 chars/s each for ``--seconds`` s — runs against ``agent-doc serve``
(under cProfile with ``--profile``) and y-websocket's Node server, alternating
``--rounds`` times in one run, so the CPU ratio is measured under the same
machine load. Prints each round's figures, the medians, and with ``--profile``
the serve process's top entries by own time and by cumulative time.

Run: ``.venv/bin/python bench/profile_serve.py --rooms 10 --seconds 10``.
"""

from __future__ import annotations

import argparse
import os
import pstats
import signal
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from bench import bench_share
from bench._fixtures import compile_packages
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of
from tests.share.yjs_node import ensure_yjs


def serve_server(root: Path, profile: Path | None) -> tuple[bench_share.Server, Any]:
    """``agent-doc serve`` on ``root`` (under cProfile writing ``profile``)."""
    python_args = ("-m", "cProfile", "-o", str(profile)) if profile else ()
    proc = ServeProcess(root, python_args=python_args).start()
    server = bench_share.Server(
        "agent-doc serve", proc.url, token_of(root), proc.proc.pid, proc.kill
    )
    return server, proc


async def fill(server: bench_share.Server, rooms: list[str]) -> None:
    """Fill each (in-memory) room with its document, as bench_share's (b) does."""
    for n, name in enumerate(rooms):
        async with bench_share.joined_with(server, name, bench_share.room_doc(name, n)):
            pass


def thread_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of the process's main thread and of all its other threads."""
    tick = os.sysconf("SC_CLK_TCK")
    main = others = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        if int(task.name) == pid:
            main += cpu
        else:
            others += cpu
    return main, others


def main() -> None:
    """Run the rounds, print the figures (and the profile)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    bench_share.LOAD_S = args.seconds
    compile_packages()
    bench_share.ROOMS = args.rooms * args.rounds  # fresh rooms for every round
    root, rooms, _big = bench_share.make_project()
    modules = ensure_yjs()
    out = Path(tempfile.mkdtemp(prefix="serve-prof-")) / "serve.prof"
    ours, proc = serve_server(root, out if args.profile else None)
    ref = bench_share.start_y_websocket(modules)
    anyio.run(fill, ref, rooms)
    figures: dict[str, list[dict[str, Any]]] = {ours.name: [], ref.name: []}
    print(f"load average {os.getloadavg()[0]:.2f}; {args.rooms} rooms × "
          f"{bench_share.PEERS_PER_ROOM} peers, {args.seconds:.0f} s")  # fmt: skip
    try:
        for n in range(args.rounds):
            these = rooms[n * args.rooms : (n + 1) * args.rooms]
            for server in (ours, ref):
                before = thread_cpu(ours.pid)
                got = bench_share.load(server, these, modules)
                if server is ours:
                    after = thread_cpu(ours.pid)
                    print(f"{'':>20}  serve's CPU: main thread "
                          f"{after[0] - before[0]:.2f} s, other threads "
                          f"{after[1] - before[1]:.2f} s")  # fmt: skip
                figures[server.name].append(got)
                print(f"{server.name:>20}: {got['arrived']}/{got['expected']} "
                      f"p50 {got['p50']:.1f} p99 {got['p99']:.1f} max {got['max']:.1f} ms, "
                      f"CPU {got['server_cpu']:.1f} %", flush=True)  # fmt: skip
    finally:
        ref.stop()
        proc.proc.send_signal(signal.SIGINT)
        proc.proc.wait(timeout=60)
    med = {n: {k: statistics.median(f[k] for f in fs) for k in ("p99", "server_cpu")}
           for n, fs in figures.items()}  # fmt: skip
    ratio = med[ours.name]["server_cpu"] / max(med[ref.name]["server_cpu"], 1e-9)
    print(f"medians: serve p99 {med[ours.name]['p99']:.1f} ms CPU "
          f"{med[ours.name]['server_cpu']:.1f} %; y-websocket p99 "
          f"{med[ref.name]['p99']:.1f} ms CPU {med[ref.name]['server_cpu']:.1f} %; "
          f"CPU ratio {ratio:.2f}×")  # fmt: skip
    if args.profile and out.exists():
        stats = pstats.Stats(str(out))
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)
        print(f"profile: {out}")


if __name__ == "__main__":
    main()
