"""Run every benchmark and write their tables to ``docs/benchmarks.md``.

Run: ``.venv/bin/python bench/run_all.py`` (add ``--only merge,cli`` for a
subset, ``--no-write`` to only print). Each ``bench/bench_*.py`` prints its own
table with its targets; this script records them with the machine they ran on.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = """\
| what | target |
|---|---|
| write with CRDT merge, 1 MB / 20k lines, 20 concurrent user edits | ≤ 50 ms median |
| component parse of that document | ≤ 10 ms |
| `agent-doc --version`, `agent-doc diff` (process wall time) | ≤ 120 ms |
| patch round trip, CLI start → edit applied in the client buffer, 100 KB | ≤ 150 ms median |
| documentSymbol + diagnostics, 1 MB / 20k lines (in the server) | ≤ 20 ms |
| one-keystroke didChange on that document | ≤ 2 ms |
| "will be sent" marks, 1 MB, debounced run (a few edits since the snapshot) | ≤ 20 ms |
| server memory, 100 open 100 KB documents | ≤ 150 MB RSS |
| route to a live pane (without the Enter-verification wait) | ≤ 100 ms |
| sync of 4 documents in 2 columns | ≤ 300 ms |
"""


def run_bench(path: Path) -> tuple[str, float]:
    """Run one bench script; return its output and wall time in seconds."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    out = proc.stdout.rstrip()
    if proc.returncode != 0:
        out += f"\n(exit {proc.returncode})\n{proc.stderr.strip()[-2000:]}"
    return out, time.monotonic() - started


def main() -> int:
    """Run the benchmarks and write the report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="comma-separated bench names")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    wanted = {n.strip() for n in args.only.split(",") if n.strip()}
    scripts = sorted((ROOT / "bench").glob("bench_*.py"))
    if wanted:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    load = os.getloadavg()[0]
    sections = []
    for script in scripts:
        print(f"== {script.name}", flush=True)
        out, took = run_bench(script)
        print(out, flush=True)
        sections.append(f"## {script.stem}\n\n```\n{out}\n```\n\n({took:.0f} s)\n")
    if args.no_write:
        return 0
    header = (
        "# Benchmarks\n\n"
        "Measured by `bench/run_all.py`, which runs every `bench/bench_*.py` and "
        "records its printed table. Numbers are wall or CPU time as each script "
        "states; they vary with machine load, so each script prints medians.\n\n"
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average at start {load:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n\n"
        "## Targets\n\n" + TARGETS + "\n"
    )
    (ROOT / "docs" / "benchmarks.md").write_text(header + "\n".join(sections))
    print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
