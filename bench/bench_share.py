"""Benchmark shared rooms (``agent-doc serve``) beside y-websocket's own server.

Three figures of issue 29, each for ``agent-doc serve`` and, as the reference in
the same run, y-websocket's Node server (``@y/websocket-server`` 0.1.1 from npm,
cached by ``tests/share/yjs_node.py``). The peers are the same for both: pycrdt
``Provider`` s over httpx-ws (``tests/share/rooms.peer``), all on 127.0.0.1.

(a) keystroke latency: two peers in one room; one types single characters at
    10 chars/s, the time until the other peer's document holds each one
    (rounds alternate between the two servers). Goal p50 ≤ 30 ms, p99 ≤ 100 ms.
(b) server memory (RSS): with no room, per small room (50 rooms, one peer
    each) and per 1 MB document (one room seeded from a 1 MB file for serve;
    one 1 MB insert for y-websocket).
(c) load: 50 rooms × 3 peers, each typing 10 chars/s on its own line for
    20 s. These peers are Yjs's own JS clients (``y-websocket``'s
    ``WebsocketProvider``) in one node process: 150 pycrdt peers over httpx-ws
    in Python needed more CPU than the 2 cores had and fell behind their own
    typing schedule first. Every typed character must reach both other peers
    of its room; lag p50/p99/max, the lag p99 of the first and last 5 s
    (growing lag = falling behind), the server's CPU, and the clients' CPU and
    typing slip (a client that cannot keep its schedule measures itself).

Run: ``.venv/bin/python bench/bench_share.py``. Without node/npm (or the npm
registry) the y-websocket column says why it is missing. The machine has 2
cores: the load average is printed; read the two servers' figures side by side.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from collections.abc import Callable
from contextlib import AsyncExitStack
from contextlib import asynccontextmanager
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from bench._fixtures import compile_packages
from bench._fixtures import session_document
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import Peer
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.yjs_node import NodeProcess
from tests.share.yjs_node import NotInstallable
from tests.share.yjs_node import ensure_yjs

ROOT = Path(__file__).resolve().parents[1]
RATE = 10.0  # chars/s per typing peer
LATENCY_ROUNDS, LATENCY_CHARS = 3, 60
ROOMS, PEERS_PER_ROOM, LOAD_S = 50, 3, 20.0
MB_DOC = 1_000_000
GOAL_P50_MS, GOAL_P99_MS = 30.0, 100.0
DRAIN_S = 15.0  # after the last keystroke, how long every char may take to arrive


# -- servers ------------------------------------------------------------------
@dataclass
class Server:
    """One server under test: its URL, token and process id."""

    name: str
    url: str
    token: str | None
    pid: int
    stop: Callable[[], None]

    def room(self, name: str) -> str:
        return f"{self.url}/{name}"

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def room_doc(session: str, n: int) -> str:
    """A small session document with one line per typing peer."""
    lines = "".join(f"p{k}: \n" for k in range(PEERS_PER_ROOM))
    return (
        f"---\nagent_doc_session: {session}\nagent_doc_format: template\n---\n"
        f"# Room {n}\n\nPeers type on their own lines.\n\n{lines}"
    )


def make_project() -> tuple[Path, list[str], str]:
    """A project with the latency document, ``ROOMS`` small ones and a 1 MB one."""
    root = Path(tempfile.mkdtemp(prefix="bench-share-")) / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    (root / "latency.md").write_text(DOC, encoding="utf-8")
    rooms = [str(uuid.UUID(int=0xB0000 + n)) for n in range(ROOMS)]
    for n, session in enumerate(rooms):
        (root / f"room{n:02d}.md").write_text(room_doc(session, n), encoding="utf-8")
    big = str(uuid.UUID(int=0xB1000))
    text = session_document(MB_DOC).replace(
        "agent_doc_session: bench", f"agent_doc_session: {big}", 1
    )
    (root / "big.md").write_text(text, encoding="utf-8")
    return root, rooms, big


def start_serve(root: Path) -> Server:
    proc = ServeProcess(root).start()
    return Server("agent-doc serve", proc.url, token_of(root), proc.proc.pid, proc.kill)


def start_y_websocket(modules: Path) -> Server:
    node = NodeProcess(modules, "server")
    port = node.wait_event(lambda e: e["event"] == "listening")["port"]
    url = f"ws://127.0.0.1:{port}"
    return Server("y-websocket server", url, None, node.proc.pid, node.stop)


# -- helpers ------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


class Mirror:
    """A peer's text kept from its ``Text`` events (a callback cannot read the text)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def apply(self, delta: list[dict[str, Any]]) -> None:
        """Apply one event's delta (retain / insert / delete)."""
        at, text = 0, self.text
        for op in delta:
            if "retain" in op:
                at += op["retain"]
            elif "insert" in op:
                text = text[:at] + op["insert"] + text[at:]
                at += len(op["insert"])
            elif "delete" in op:
                text = text[:at] + text[at + op["delete"] :]
        self.text = text


@asynccontextmanager
async def joined_with(server: Server, name: str, text: str) -> AsyncIterator[Peer]:
    """A peer in room ``name``; an empty room (y-websocket) is filled with ``text``."""
    async with peer(server.room(name), server.token) as joined:
        if not str(joined.text):
            sent = joined.channel.updates_sent
            joined.text.insert(0, text)
            await joined.channel.wait_until(lambda: joined.channel.updates_sent > sent)
            await round_trip(joined)  # the next peer finds the room filled
        yield joined


async def round_trip(joined: Peer) -> None:
    """Wait until the server has applied everything this peer sent."""
    from pycrdt import create_sync_message

    replies = joined.channel.replies
    await joined.channel.send(create_sync_message(joined.doc))
    with anyio.fail_after(30):
        await joined.channel.wait_until(lambda: joined.channel.replies > replies)


# -- (a) latency --------------------------------------------------------------
@dataclass
class Pair:
    typist: Peer
    watcher: Peer
    mirror: Mirror
    arrivals: dict[int, float] = field(default_factory=dict)
    changed: Any = None


async def type_and_watch(pair: Pair, chars: int, out: list[float]) -> None:
    """Type ``chars`` characters at :data:`RATE`; append each one's latency."""
    at = str(pair.typist.text).index("What is") + len("What is")
    base = len(pair.mirror.text)
    start = time.perf_counter()
    for i in range(chars):
        await anyio.sleep(max(0.0, start + i / RATE - time.perf_counter()))
        want = base + i + 1
        pair.changed = anyio.Event()
        sent = time.perf_counter()
        pair.typist.text.insert(at + i, "abcdefghij"[i % 10])
        with anyio.fail_after(10):
            while want not in pair.arrivals:
                await pair.changed.wait()
                pair.changed = anyio.Event()
        out.append((pair.arrivals[want] - sent) * 1000)


async def latency(servers: list[Server]) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {s.name: [] for s in servers}
    async with AsyncExitStack() as stack:
        pairs = {}
        for server in servers:
            typist = await stack.enter_async_context(joined_with(server, SESSION, DOC))
            watcher = await stack.enter_async_context(
                peer(server.room(SESSION), server.token)
            )
            await watcher.until(lambda t: "What is" in t)
            pair = Pair(typist, watcher, Mirror(str(watcher.text)))

            def seen(pair: Pair, event: Any) -> None:
                now = time.perf_counter()
                pair.mirror.apply(event.delta)
                pair.arrivals.setdefault(len(pair.mirror.text), now)
                if pair.changed is not None:
                    pair.changed.set()

            watcher.text.observe(partial(seen, pair))  # (pycrdt counts parameters)
            pairs[server.name] = pair
        for _round in range(LATENCY_ROUNDS):
            for server in servers:
                await type_and_watch(
                    pairs[server.name], LATENCY_CHARS, results[server.name]
                )
    return results


# -- (b) memory ---------------------------------------------------------------
async def memory(server: Server, rooms: list[str], big: str) -> dict[str, float]:
    figures = {"empty": server.rss_mb()}
    async with AsyncExitStack() as stack:
        for n, name in enumerate(rooms):
            joined = await stack.enter_async_context(
                joined_with(server, name, room_doc(name, n))
            )
            await round_trip(joined)
        figures["rooms"] = server.rss_mb()
        text = session_document(MB_DOC)
        started = time.perf_counter()
        joined = await stack.enter_async_context(joined_with(server, big, text))
        await round_trip(joined)
        figures["big_open_s"] = time.perf_counter() - started
        figures["big"] = server.rss_mb()
        figures["big_chars"] = len(str(joined.text))
    figures["per_room_kb"] = (figures["rooms"] - figures["empty"]) * 1024 / len(rooms)
    figures["per_mb"] = (figures["big"] - figures["rooms"]) / (
        figures["big_chars"] / 1e6
    )
    return figures


# -- (c) load -----------------------------------------------------------------
def load(server: Server, rooms: list[str], modules: Path) -> dict[str, Any]:
    """Type in ``rooms`` with Yjs's own JS peers (one node process); the figures.

    Python peers (pycrdt over httpx-ws) cost too much CPU to type 1,500 chars/s
    on 2 cores beside the server: they fell behind on their own schedule
    before the server did. Yjs's JS client types the same load on a fraction
    of a core, so the figures are the server's.
    """
    begin_ms = 10_000  # every peer joins its room before the typing starts
    env = {
        "YJS_TOKEN": server.token or "",
        "PEERS": str(PEERS_PER_ROOM),
        "RATE": str(RATE),
        "SECONDS": str(LOAD_S),
        "DRAIN_MS": str(DRAIN_S * 1000),
        "BEGIN_MS": str(begin_ms),
    }
    cpu0 = server.cpu_s()
    started = time.monotonic()
    node = NodeProcess(modules, "load", server.url, *rooms, env=env)
    try:
        out = node.wait_event(lambda e: "lags" in e, timeout=LOAD_S + DRAIN_S + 60)
    finally:
        node.stop()
    server_cpu = server.cpu_s() - cpu0
    window = time.monotonic() - started
    lags, times = out["lags"], out["lag_times"]
    first = [lag for lag, t in zip(lags, times, strict=True) if t < 5]
    last = [lag for lag, t in zip(lags, times, strict=True) if t >= LOAD_S - 5]
    return {
        "arrived": out["arrived"],
        "expected": out["expected"],
        "p50": pct(lags, 0.5),
        "p99": pct(lags, 0.99),
        "max": max(lags, default=float("nan")),
        "p99_first": pct(first, 0.99),
        "p99_last": pct(last, 0.99),
        "drain": out["drain_s"],
        "slip_p99": pct(out["slip"], 0.99),
        "late_ready": out["late_ready"],
        "server_cpu": server_cpu / window * 100,
        "worker_cpu": out["cpu_s"] / LOAD_S * 100,
        # each lag and when it was seen (s after the typing began, at
        # begin_epoch_ms on the wall clock): bench/serve_lag.py's attribution
        "lags": lags,
        "lag_times": times,
        "begin_epoch_ms": out.get("begin_epoch_ms"),
    }


# -- report -------------------------------------------------------------------
def report(
    servers: list[Server],
    missing: str,
    lat: dict[str, list[float]],
    mem: dict[str, dict[str, float]],
    loads: dict[str, dict[str, Any]],
    load_avg: tuple[float, float],
) -> None:
    names = [s.name for s in servers]
    if missing:
        names.append("y-websocket server")
    width = 20

    def row(label: str, values: list[str], goal: str = "") -> None:
        cells = "".join(f"{v:>{width}}" for v in values)
        print(f"{label:<34}{cells}  {goal}")

    def each(fn: Callable[[str], str]) -> list[str]:
        return [fn(n) if n in lat else "n/a" for n in names]

    print(f"load average {load_avg[0]:.2f} at start, {load_avg[1]:.2f} at the end "
          f"({os.cpu_count()} cores)")  # fmt: skip
    if missing:
        print(f"y-websocket server: n/a ({missing})")
    print()
    print(f"(a) keystroke → other peer's document, one room, {RATE:.0f} chars/s, "
          f"{LATENCY_ROUNDS}×{LATENCY_CHARS} chars per server (rounds alternate)")  # fmt: skip
    row("", names)
    for label, q in (("p50 ms", 0.5), ("p99 ms", 0.99)):
        goal = GOAL_P50_MS if q == 0.5 else GOAL_P99_MS
        ours = pct(lat[names[0]], q)
        row(label, each(lambda n, q=q: f"{pct(lat[n], q):.1f}"),
            f"goal ≤ {goal:.0f} ({'ok' if ours <= goal else 'SLOW'})")  # fmt: skip
    row("max ms", each(lambda n: f"{max(lat[n]):.1f}"))
    print()
    print("(b) server memory (RSS)")
    row("", names)
    row("no room, MB", each(lambda n: f"{mem[n]['empty']:.1f}"))
    row(
        f"{ROOMS} small rooms (1 peer each), MB",
        each(lambda n: f"{mem[n]['rooms']:.1f}"),
    )
    row("per small room, KB", each(lambda n: f"{mem[n]['per_room_kb']:.0f}"))
    row("+ one 1 MB document, MB", each(lambda n: f"{mem[n]['big']:.1f}"))
    row("per 1 MB document, MB", each(lambda n: f"{mem[n]['per_mb']:.1f}"))
    row("1 MB room: join → synced, s", each(lambda n: f"{mem[n]['big_open_s']:.2f}"))
    print()
    print(f"(c) {ROOMS} rooms × {PEERS_PER_ROOM} peers, each typing {RATE:.0f} chars/s "
          f"for {LOAD_S:.0f} s (Yjs JS peers in one node process)")  # fmt: skip
    if not loads:
        print(f"n/a: the typing peers need node ({missing})")
        return
    row("", names)

    def got(n: str) -> str:
        return f"{loads[n]['arrived']}/{loads[n]['expected']}"

    row("chars arrived / expected", each(got), "goal: all")
    row("lag p50 ms", each(lambda n: f"{loads[n]['p50']:.1f}"))
    row(
        "lag p99 ms",
        each(lambda n: f"{loads[n]['p99']:.1f}"),
        f"goal ≤ {GOAL_P99_MS:.0f}",
    )
    row("lag max ms", each(lambda n: f"{loads[n]['max']:.1f}"))
    row("lag p99 first 5 s / last 5 s", each(
        lambda n: f"{loads[n]['p99_first']:.0f} / {loads[n]['p99_last']:.0f}"),
        "not growing")  # fmt: skip
    row("all arrived after last key, s", each(
        lambda n: "never" if loads[n]["drain"] is None else f"{loads[n]['drain']:.2f}"))  # fmt: skip
    row("server CPU, % of one core", each(lambda n: f"{loads[n]['server_cpu']:.0f}"))
    row("clients' CPU, % of one core", each(lambda n: f"{loads[n]['worker_cpu']:.0f}"))
    row("clients' typing slip p99 ms", each(lambda n: f"{loads[n]['slip_p99']:.1f}"))
    for n in names:
        if n in loads:
            print(f"{n}: {verdict(loads[n])}")


def verdict(figures: dict[str, Any]) -> str:
    """``kept up`` when every char arrived within :data:`DRAIN_S` and the lag
    of the last 5 s is within the goal (or no worse than twice the first 5 s)."""
    if figures["arrived"] < figures["expected"] or figures["drain"] is None:
        return "FELL BEHIND (chars missing)"
    last, first = figures["p99_last"], figures["p99_first"]
    if not last <= max(GOAL_P99_MS, 2 * first):  # NaN-safe: no figure fails
        return f"FELL BEHIND (lag p99 {first:.0f} → {last:.0f} ms)"
    return "kept up"


async def measure(root: Path, rooms: list[str], big: str) -> None:
    load_start = os.getloadavg()[0]
    try:
        modules: Path | None = ensure_yjs()
        missing = ""
    except (NotInstallable, RuntimeError) as exc:
        modules, missing = None, str(exc).splitlines()[0]
    servers = [start_serve(root)]
    if modules is not None:
        servers.append(start_y_websocket(modules))
    try:
        mem = {s.name: await memory(s, rooms, big) for s in servers}
        lat = await latency(servers)
        loads = {}
        for server in servers if modules is not None else []:
            loads[server.name] = await anyio.to_thread.run_sync(
                load, server, rooms, modules
            )
    finally:
        for server in servers:
            server.stop()
    report(servers, missing, lat, mem, loads, (load_start, os.getloadavg()[0]))


def main() -> None:
    compile_packages()
    root, rooms, big = make_project()
    anyio.run(measure, root, rooms, big)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
