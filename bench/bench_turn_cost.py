"""CPU time and peak memory of the per-turn commands, small against large (issue 37, item 1).

Two session documents (:mod:`bench._long_docs`): 20 turns (≈ 75 KB) and
``--turns`` turns (default 2,500 ≈ 9.5 MB), each in a git repository as the
agent's last answer left it, with one line typed since. Per command, as whole
processes forked from a small launcher: ``diff``, ``preflight --no-wait`` (and
with ``--excerpts``, row "excerpts"),
``run --dry-run`` (every step up to the agent call) and ``write`` of a 3-line
answer (``--force-disk``, the document as the agent saw it; row "write-status":
the same answer with a patch of the status component near the top). Each sample runs in
a fresh copy of the repository; small and large samples alternate; the table
shows medians of the CPU time (user + sys, ``wait4``'s rusage) beside the wall
time, the peak RSS, the CPU ratio large ÷ small, and the peak memory above the
small one ÷ the document's size.

Goals (issue 37): CPU ≤ 2×, memory above the small one ≤ 3× the document.

Run: ``.venv/bin/python bench/bench_turn_cost.py [--turns 2500] [--runs 5]
[--commands diff,preflight,excerpts,run,write,write-status]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import compile_packages
from bench._long_docs import make_repository
from bench._long_docs import type_line

CLI = str(Path(sys.executable).with_name("agent-doc"))
ANSWER = "<!-- patch:exchange -->\n### Re: typed\n\nA short answer.\n<!-- /patch:exchange -->\n"
STATUS = "<!-- patch:status -->\nanswered again\n<!-- /patch:status -->\n"
LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["stdin"], "rb") as inp:
        began = time.monotonic()
        proc = subprocess.Popen(job["argv"], cwd=job["cwd"], stdin=inp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = proc.stderr.read()
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - began
    code = os.waitstatus_to_exitcode(status)
    print(json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss, code,
                      wall, err.decode(errors="replace")[-400:]]), flush=True)
"""
"""Forks the measured processes from a small process (a child's peak RSS counts
the pages of the process it was forked from)."""


class Launcher:
    """Runs one command at a time; answers its CPU seconds, peak RSS (MB) and wall seconds."""

    def __init__(self, folder: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)  # fmt: skip
        self.stdin = folder / "stdin"

    def measure(
        self, argv: list[str], cwd: Path, stdin: str = ""
    ) -> tuple[float, float, float]:
        """CPU seconds (user + sys), peak RSS in MB and wall seconds of ``argv`` run in ``cwd``."""
        self.stdin.write_text(stdin, "utf-8")
        job = {"argv": argv, "cwd": str(cwd), "stdin": str(self.stdin)}
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        cpu, rss_kb, code, wall, err = json.loads(self.proc.stdout.readline())
        if code != 0:
            raise RuntimeError(f"{argv[1:3]} exited {code}: {err}")
        return cpu, rss_kb / 1024, wall

    def close(self) -> None:
        """Stop the launcher."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def _prepare(pristine: Path, work: Path, command: str) -> tuple[list[str], str]:
    """A fresh copy of ``pristine`` at ``work`` set up for ``command``; its argv and stdin."""
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(["cp", "-a", str(pristine), str(work)], check=True)
    doc = work / "doc.md"
    text = doc.read_text("utf-8")
    if command == "write":  # the answer to the document as the agent saw it
        return [CLI, "write", "doc.md", "--force-disk"], ANSWER
    if command == "write-status":  # (the top changes too)
        return [CLI, "write", "doc.md", "--force-disk"], STATUS + ANSWER
    doc.write_text(type_line(text), "utf-8")
    if command == "diff":
        return [CLI, "diff", "doc.md"], ""
    if command == "preflight":
        return [CLI, "preflight", "doc.md", "--no-wait"], ""
    if command == "excerpts":  # a later turn of the skill: no whole document
        return [CLI, "preflight", "doc.md", "--no-wait", "--excerpts"], ""
    return [CLI, "run", "doc.md", "--dry-run"], ""


def main() -> None:
    """Build both repositories, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commands", default="diff,preflight,excerpts,run,write")
    args = parser.parse_args()
    compile_packages()
    commands = args.commands.split(",")
    with tempfile.TemporaryDirectory(prefix="ad-turn-cost-") as tmp:
        root = Path(tmp)
        repos: dict[int, Path] = {}
        for n in (20, args.turns):  # state is keyed by the document's path:
            made = make_repository(root / f"w{n}", n).parent  # samples run there
            repos[n] = root / f"r{n}"
            subprocess.run(["cp", "-a", str(made), str(repos[n])], check=True)
        size = {n: (repos[n] / "doc.md").stat().st_size for n in repos}
        launcher = Launcher(root)
        samples: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
        try:
            for _ in range(args.runs):
                for command in commands:
                    for n in repos:  # small and large alternate
                        work = root / f"w{n}"
                        argv, stdin = _prepare(repos[n], work, command)
                        got = launcher.measure(argv, work, stdin)
                        samples.setdefault((command, n), []).append(got)
        finally:
            launcher.close()
    small, big = 20, args.turns
    print(f"documents: {size[small] / 1e3:.0f} KB (20 turns) and "
          f"{size[big] / 1e6:.1f} MB ({big} turns); medians of {args.runs} runs")  # fmt: skip
    print(
        "| command | CPU small | CPU large | ratio | wall small | wall large "
        "| RSS small | RSS large | above ÷ doc |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for command in commands:
        cs, ms, ws = (
            statistics.median(v) for v in zip(*samples[(command, small)], strict=True)
        )
        cb, mb, wb = (
            statistics.median(v) for v in zip(*samples[(command, big)], strict=True)
        )
        above = (mb - ms) * 2**20 / size[big]
        print(f"| {command} | {cs * 1e3:.0f} ms | {cb * 1e3:.0f} ms | {cb / cs:.1f}× "
              f"| {ws * 1e3:.0f} ms | {wb * 1e3:.0f} ms | {ms:.0f} MB | {mb:.0f} MB | {above:.1f}× |")  # fmt: skip


if __name__ == "__main__":
    main()
