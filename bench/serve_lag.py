"""What produces ``agent-doc serve``'s lag p99 under bench_share's typing load.

Issue 37 item 5. Serve runs under ``bench/serve_lag_probe.py`` (its GC
collections, event-loop stalls and worker-thread calls recorded on the wall
clock), y-websocket's server beside it as the reference, ``--rounds`` rounds of
``--rooms`` rooms × 3 Yjs JS peers typing 10 chars/s for ``--seconds`` s
(serve_variants' loads). Each lag over ``--over`` ms is a character sent at
``seen - lag`` and seen at ``seen`` by a peer (node's clock = the wall clock):
the stalls and collections inside that span say what held it. Prints a table:
the share of the lag events each cause explains.

A lag event's cause, in this order:

- *GC*: a collection overlapping it took at least half of the main thread's
  stalled time within the span;
- *loop busy*: the loop stalled (a 2 ms timer > 4 ms late) with the main
  thread on a core, in Python other than GC (callbacks: a burst of messages,
  a large one);
- *no core*: the main thread waited on the run queue (the machine's 2 cores
  busy with other processes, node's peers included);
- *blocked*: neither on a core nor waiting for one, while its loop had work
  due (the GIL, held by a worker thread: the stores, the projections);
- *no stall*: no stall of the loop inside the span (the time went to the
  message's own path: queued behind others in the same tick, the kernel, the
  peer's process).

Run: ``.venv/bin/python bench/serve_lag.py --rooms 50 --seconds 10 --rounds 3``
(``SERVE_GC`` / ``SERVE_SWITCH`` pass through to serve: see serve_lag_probe).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from bisect import bisect_left
from bisect import bisect_right
from collections import Counter
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from bench import bench_share
from bench._fixtures import compile_packages
from bench.profile_serve import fill
from bench.serve_variants import REF
from bench.serve_variants import Variant
from bench.serve_variants import measure
from tests.share.yjs_node import ensure_yjs

HERE = Path(__file__).resolve().parent
CAUSES = ("GC", "loop busy", "no core", "blocked", "no stall")


def overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    """Seconds two spans share."""
    return max(0.0, min(a1, b1) - max(a0, b0))


def cause_of(
    span: tuple[float, float], probe: dict[str, Any]
) -> tuple[str, dict[str, float]]:
    """The cause of a lag over ``span`` (see the module's docstring), and the
    stalled time within it by part (seconds)."""
    s0, s1 = span
    parts = dict.fromkeys(("stalled", "gc", "oncpu", "runq", "blocked", "thread"), 0.0)
    for t0, t1, oncpu, runq in probe["stalls"]:
        shared = overlap(s0, s1, t0, t1)
        if shared <= 0:
            continue
        scale = shared / max(t1 - t0, 1e-9)
        parts["stalled"] += shared
        parts["oncpu"] += oncpu * scale
        parts["runq"] += runq * scale
        parts["blocked"] += max(0.0, (t1 - t0) - oncpu - runq) * scale
    for t0, took, _gen, _n in probe["gcs"]:
        parts["gc"] += overlap(s0, s1, t0, t0 + took)
    starts, calls = probe["thread_starts"], probe["work_calls"]
    for t0, t1, _name, _cpu in calls[
        bisect_left(starts, s0 - 1.0) : bisect_right(starts, s1)
    ]:
        parts["thread"] += overlap(s0, s1, t0, t1)
    if parts["stalled"] < 0.004:
        return "no stall", parts
    if parts["gc"] >= parts["stalled"] / 2:
        return "GC", parts
    busy = parts["oncpu"] - parts["gc"]
    largest = max(("loop busy", busy), ("no core", parts["runq"]),
                  ("blocked", parts["blocked"]), key=lambda kv: kv[1])  # fmt: skip
    return largest[0], parts


def attribute(
    rounds: list[dict[str, Any]], probe: dict[str, Any], over_ms: float
) -> None:
    """Print each cause's share of the lag events over ``over_ms``."""
    causes: Counter[str] = Counter()
    lag_ms: defaultdict[str, float] = defaultdict(float)
    sums: defaultdict[str, float] = defaultdict(float)
    total = events = 0
    for got in rounds:
        begin = got["begin_epoch_ms"] / 1000
        for lag, when in zip(got["lags"], got["lag_times"], strict=True):
            total += 1
            if lag <= over_ms:
                continue
            events += 1
            seen = begin + when
            cause, parts = cause_of((seen - lag / 1000, seen), probe)
            causes[cause] += 1
            lag_ms[cause] += lag
            for k, v in parts.items():
                sums[k] += v
    print(f"\n{events} of {total} lags over {over_ms:.0f} ms "
          f"({100 * events / max(total, 1):.2f} %)")  # fmt: skip
    print("| cause | events | share | lag ms (sum) |")
    print("|---|---|---|---|")
    for cause in CAUSES:
        print(f"| {cause} | {causes[cause]} | {100 * causes[cause] / max(events, 1):.0f} % "
              f"| {lag_ms[cause]:.0f} |")  # fmt: skip
    print(
        "stalled time inside those lags, summed (s): "
        + ", ".join(f"{k} {v:.2f}" for k, v in sums.items())
    )


def suspects(probe: dict[str, Any], spans: list[tuple[float, float]]) -> None:
    """The collections, stalls and worker calls during the loads."""

    def inside(t: float) -> bool:
        return any(a <= t <= b for a, b in spans)

    gcs = [g for g in probe["gcs"] if inside(g[0])]
    for gen in (0, 1, 2):
        pauses = sorted(g[1] * 1000 for g in gcs if g[2] == gen)
        if pauses:
            print(f"GC gen {gen}: {len(pauses)} collections, {sum(pauses):.0f} ms in "
                  f"all, max {pauses[-1]:.1f} ms, over 5 ms: "
                  f"{sum(t > 5 for t in pauses)}")  # fmt: skip
    print(
        "gen 2 collections (ms): "
        + ", ".join(f"{1000 * g[1]:.0f}" for g in probe["gcs"] if g[2] == 2)
    )
    if probe.get("heaps"):
        print(
            "objects at each gen 2 collection: "
            + ", ".join(str(n) for _, n in probe["heaps"])
        )
    print(
        f"objects at exit: {probe.get('objects')}; "
        + ", ".join(f"{k} {n}" for k, n in probe.get("census", [])[:15])
    )
    stalls = [s for s in probe["stalls"] if inside(s[0])]
    long = [s for s in stalls if s[1] - s[0] > 0.010]
    print(f"loop stalls (timer > {1000 * 0.004:.0f} ms late): {len(stalls)}, "
          f"{sum(s[1] - s[0] for s in stalls):.2f} s; over 10 ms: {len(long)}, "
          f"on a core {sum(s[2] for s in long):.2f} s, run queue "
          f"{sum(s[3] for s in long):.2f} s, blocked "
          f"{sum(max(0, s[1] - s[0] - s[2] - s[3]) for s in long):.2f} s")  # fmt: skip
    calls: Counter[str] = Counter()
    took: defaultdict[str, float] = defaultdict(float)
    cpu: defaultdict[str, float] = defaultdict(float)
    for t0, t1, name, spent in probe["threads"]:
        if inside(t0):
            calls[name] += 1
            took[name] += t1 - t0
            cpu[name] += spent
    print("worker-thread calls (count, wall ms in the thread, its CPU ms): " + ", ".join(
        f"{name} {n} ({1000 * took[name]:.0f}, {1000 * cpu[name]:.0f})"
        for name, n in calls.most_common(8)))  # fmt: skip


def main() -> None:
    """Run the rounds, then attribute the lags."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--over", type=float, default=10.0)
    args = parser.parse_args()
    bench_share.LOAD_S = args.seconds
    bench_share.ROOMS = args.rooms * args.rounds
    compile_packages()
    modules = ensure_yjs()
    out = Path(tempfile.mkdtemp(prefix="serve-lag-")) / "probe.json"
    os.environ["LAG_PROBE_OUT"] = str(out)
    python = f"{sys.executable} {HERE / 'serve_lag_probe.py'}"
    ours = Variant("serve (probed)", python, "uvicorn")
    ref = bench_share.start_y_websocket(modules)
    rounds: list[dict[str, Any]] = []
    spans: list[tuple[float, float]] = []
    try:
        server = ours.start()
        anyio.run(fill, ref, ours.rooms)
        for n in range(args.rounds):
            span = slice(n * args.rooms, (n + 1) * args.rooms)
            got = measure(server, ours.rooms[span], modules)
            rounds.append(got)
            begin = got["begin_epoch_ms"] / 1000
            spans.append((begin, begin + args.seconds + 2))
            refgot = measure(ref, ours.rooms[span], modules)
            print(f"{'':>24}  {REF}: lags over {args.over:.0f} ms: "
                  f"{sum(lag > args.over for lag in refgot['lags'])}"
                  f"/{len(refgot['lags'])}")  # fmt: skip
    finally:
        ref.stop()
        ours.stop()
    probe = json.loads(out.read_text())
    # the worker calls that do work (not the file watcher's wait), by start
    probe["work_calls"] = sorted(t for t in probe["threads"] if "watch" not in t[2])
    probe["thread_starts"] = [t[0] for t in probe["work_calls"]]
    suspects(probe, spans)
    attribute(rounds, probe, args.over)


if __name__ == "__main__":
    main()
