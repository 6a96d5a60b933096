"""``agent-doc serve`` with the lag's suspects recorded, or its runtime tuned (a measurement only).

Issue 37 item 5: what produces the sync server's lag p99. Started like
``bench/serve_store_window.py`` (a ``--variant`` interpreter of
``bench/serve_variants.py``; whatever is on its command line is ignored), it
serves the current project on a free port after:

- ``LAG_PROBE_OUT=PATH``: recording, until serve exits (then written to PATH as
  JSON), every cyclic GC collection (``gc.callbacks``: its start on the wall
  clock, its duration, its generation), every event-loop stall (a timer due
  every 2 ms that ran more than 4 ms late: its span, and what the main thread
  did during it from ``/proc/thread-self/schedstat`` — on a core, waiting
  for one, or neither: blocked, which under load is the GIL), and every
  worker-thread call (``anyio.to_thread.run_sync``: the stores' SQLite
  statements, the projections' file reads and writes: its span in the thread
  and the thread's CPU time in it).
- ``SERVE_GC=default|freeze|T0[/T1[/T2]]|freeze:T0/T1/T2|off``: the cyclic
  GC set before serve starts its loop (``gc.freeze()`` after the imports),
  on top of serve's own setting (``server.long_lived_heap``); ``SERVE_GC=before``:
  without serve's own setting (CPython's defaults, serve as it was before).
- ``SERVE_SWITCH=SECONDS``: ``sys.setswitchinterval``.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PROBE_S = 0.002
STALL_S = 0.004


class Probe:
    """The recorded suspects (wall-clock seconds since the epoch)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.gcs: list[tuple[float, float, int, int]] = []
        self.stalls: list[tuple[float, float, float, float]] = []
        self.threads: list[tuple[float, float, str, float]] = []
        self.heaps: list[tuple[float, int]] = []
        self._gc_start = 0.0
        self._due = 0.0
        self._last = (0.0, 0, 0)
        self._schedstat = open("/proc/thread-self/schedstat", "rb")  # noqa: SIM115
        gc.callbacks.append(self._on_gc)
        atexit.register(self.write)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if info["generation"] == 2 and os.environ.get("LAG_PROBE_HEAP"):
                self.heaps.append((time.time(), len(gc.get_objects())))
            self._gc_start = time.time()
        else:
            self.gcs.append(
                (self._gc_start, time.time() - self._gc_start, info["generation"],
                 info["collected"])
            )  # fmt: skip

    def _sched(self) -> tuple[int, int]:
        self._schedstat.seek(0)
        oncpu, waiting, _ = self._schedstat.read().split()
        return int(oncpu), int(waiting)

    def start_loop_probe(self, loop: Any) -> None:
        """Tick on ``loop`` every :data:`PROBE_S`, noting each late tick."""
        self._last = (time.time(), *self._sched())
        self._due = loop.time() + PROBE_S
        loop.call_later(PROBE_S, self._tick, loop)

    def _tick(self, loop: Any) -> None:
        late = loop.time() - self._due
        now = time.time()
        oncpu, waiting = self._sched()
        if late > STALL_S:
            then, cpu0, wait0 = self._last
            self.stalls.append(
                (then, now, (oncpu - cpu0) / 1e9, (waiting - wait0) / 1e9)
            )
        self._last = (now, oncpu, waiting)
        self._due = loop.time() + PROBE_S
        loop.call_later(PROBE_S, self._tick, loop)

    def wrap_threads(self) -> None:
        """Note the span of every ``anyio.to_thread.run_sync`` call in its thread."""
        import anyio.to_thread

        original = anyio.to_thread.run_sync
        threads = self.threads

        async def run_sync(func: Any, *args: Any, **kwargs: Any) -> Any:
            def timed(*a: Any) -> Any:
                began, cpu = time.time(), time.thread_time()
                try:
                    return func(*a)
                finally:
                    name = getattr(func, "__qualname__", "?")
                    spent = time.thread_time() - cpu
                    threads.append((began, time.time(), name, spent))

            return await original(timed, *args, **kwargs)

        anyio.to_thread.run_sync = run_sync  # type: ignore[assignment]

    def write(self) -> None:
        """Write what was recorded to :attr:`out`."""
        from collections import Counter

        gc.collect()  # what is alive, not the garbage awaiting a collection
        census = Counter(type(o).__qualname__ for o in gc.get_objects())
        data = {"gcs": self.gcs, "stalls": self.stalls, "threads": self.threads,
                "heaps": self.heaps, "objects": sum(census.values()),
                "census": census.most_common(25)}  # fmt: skip
        self.out.write_text(json.dumps(data))


def tune_gc(setting: str) -> None:
    """Apply ``SERVE_GC``."""
    if setting in ("", "default", "before"):
        return
    if setting == "off":
        gc.disable()
        return
    freeze, _, thresholds = (
        setting.partition(":") if setting.startswith("freeze") else ("", "", setting)
    )
    if thresholds:
        gc.set_threshold(*(int(t) for t in thresholds.replace("/", ",").split(",")))
    if freeze or setting == "freeze":
        gc.collect()
        gc.freeze()


def main() -> None:
    """Serve the current project with the probe and the settings asked for."""
    import anyio.to_thread  # noqa: F401
    import pycrdt.websocket  # noqa: F401
    import uvicorn.protocols.websockets.websockets_sansio_impl  # noqa: F401

    from agent_doc.share import server

    out = os.environ.get("LAG_PROBE_OUT")
    probe = Probe(Path(out)) if out else None
    if probe is not None:
        probe.wrap_threads()
    if os.environ.get("SERVE_SWITCH"):
        sys.setswitchinterval(float(os.environ["SERVE_SWITCH"]))
    if os.environ.get("SERVE_GC") == "before":
        server.long_lived_heap = lambda: (0, gc.get_threshold())  # type: ignore[assignment]
    original = server.loop_options

    def loop_options() -> dict[str, Any]:
        options = original()
        factory = options.get("loop_factory")
        tune_gc(os.environ.get("SERVE_GC", ""))
        if probe is None or factory is None:
            return options

        def probed() -> Any:
            loop = factory()
            probe.start_loop_probe(loop)
            return loop

        return {"loop_factory": probed}

    server.loop_options = loop_options  # type: ignore[assignment]
    threading.current_thread().name = "serve-main"
    sys.argv = ["agent-doc", "serve", "--port", "0"]
    from agent_doc.cli.entry import console

    console()


if __name__ == "__main__":
    main()
