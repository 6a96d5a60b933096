"""Benchmark session routing on a private tmux server; prints a table.

Targets: route to a live pane ≤ 100 ms (without the Enter-verification wait),
sync of 4 documents in 2 columns ≤ 300 ms (steady state and full rebuild).
Run: ``.venv/bin/python bench/bench_tmux.py``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

FAKE = Path(__file__).resolve().parent.parent / "tests" / "data" / "fake_agent.py"


def measure(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """Median and max wall time (ms) of ``n`` calls."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    """Set up a private server with 4 agents and time route and sync."""
    name = f"agentdoc-bench-{uuid.uuid4().hex[:8]}"
    os.environ["AGENT_DOC_TMUX_SOCKET"] = name
    os.environ.pop("TMUX_PANE", None)
    subprocess.run(["tmux", "-L", name, "-f", "/dev/null", "new-session", "-d",
                    "-s", "main", "-x", "200", "-y", "50", "/bin/sh"], check=True)  # fmt: skip
    from agent_doc.tmux.adapter import Tmux
    from agent_doc.tmux.claim import claim
    from agent_doc.tmux.route import route
    from agent_doc.tmux.sync import sync

    tmux = Tmux(name)
    try:
        root = Path(tempfile.mkdtemp()) / "proj"
        (root / ".agent-doc").mkdir(parents=True)
        docs = []
        for i in range(4):
            doc = root / f"d{i}.md"
            doc.write_text(f"---\nagent_doc_session: {uuid.uuid4()}\n---\n# D\n")
            pane = tmux.run("new-window", "-d", "-P", "-F", "#{pane_id}",
                            f"exec {sys.executable} {FAKE}")[0]  # fmt: skip
            claim(doc, pane=pane, tmux=tmux)
            docs.append(str(doc))
        time.sleep(0.5)
        rows = []
        med, worst = measure(lambda: route(docs[0], verify_s=0, tmux=tmux), 20)
        rows.append(("route (live pane, no Enter wait)", med, worst, 100))
        cols = [[docs[0], docs[1]], [docs[2], docs[3]]]
        sync(cols, tmux=tmux)
        med, worst = measure(lambda: sync(cols, tmux=tmux), 20)
        rows.append(("sync 4 docs / 2 cols (steady)", med, worst, 300))
        swapped = [[docs[2], docs[3]], [docs[0], docs[1]]]
        flip = [cols, swapped]
        med, worst = measure(
            lambda: sync(flip.append(flip.pop(0)) or flip[0], tmux=tmux), 10
        )
        rows.append(("sync 4 docs / 2 cols (rebuild)", med, worst, 300))
        print(f"{'operation':<36} {'median ms':>10} {'max ms':>8} {'target':>7}")
        for label, m, w, target in rows:
            ok = "ok" if m <= target else "SLOW"
            print(f"{label:<36} {m:>10.1f} {w:>8.1f} {target:>5} {ok}")
    finally:
        subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
