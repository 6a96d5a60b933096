"""``agent-doc write`` merging concurrent edits, beside ``git merge-file``.

What a user waits for when the agent's answer lands while they keep typing: the
whole ``agent-doc write --baseline-file B --force-disk`` process, merging a
50-line answer into an ~835 KB session document in which the user made 20 edits
since the baseline. The reference, measured in the same run and interleaved
sample by sample, is ``git merge-file -p`` on the same three texts (baseline,
content_ours, the user's file). Our start-up floor, ``agent-doc --version``, is
subtracted. Every run checks that the merge kept every edit and left no
conflict marker; git's conflict count is reported.

Goal: (write − --version) ≤ 2.5 × git merge-file.

Run: ``.venv/bin/python bench/bench_write_merge.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import answer
from bench._fixtures import session_document
from bench._fixtures import user_edits

GOAL = 2.5
CLI = str(Path(sys.executable).with_name("agent-doc"))


CPU: dict[str, float] = {}
"""CPU ms (user + system) of the last run of each program (load-independent)."""


def _wall(argv: list[str], cwd: Path, stdin: bytes = b"") -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, check=False)
    took = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = 1000 * (
        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    )
    if proc.returncode not in (0, 1) or (proc.returncode and argv[0] != "git"):
        raise SystemExit(f"{argv[:2]} failed: {proc.stderr.decode()[-500:]}")
    return took, proc.stdout


def _check(merged: str, theirs: str, ours_answer: str) -> None:
    """Every user edit and the whole answer are in ``merged``; no conflict."""
    for line in theirs.splitlines():
        if "user" in line and line not in merged:
            raise SystemExit(f"merge lost a user edit: {line!r}")
    for line in ours_answer.splitlines():
        if line.strip() and line not in merged:
            raise SystemExit(f"merge lost an answer line: {line!r}")
    if "<<<<<<<" in merged or ">>>>>>>" in merged:
        raise SystemExit("merge left a conflict marker")


def main(runs: int) -> None:
    """Measure and print the table."""
    from _fixtures import compile_packages

    compile_packages()
    base = session_document()
    theirs = user_edits(base)
    response = answer()
    ours_lines: list[float] = []
    samples: dict[str, list[float]] = {"write": [], "version": [], "git": []}
    cpu: dict[str, list[float]] = {"write": [], "version": [], "git": []}
    conflicts = 0
    with tempfile.TemporaryDirectory(prefix="ad-bench-") as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / ".agent-doc").mkdir()
        doc, baseline = root / "doc.md", root / "baseline.md"
        baseline.write_text(base, "utf-8")
        for i in range(runs + 1):  # the first round warms the caches
            doc.write_text(theirs, "utf-8")
            shutil.rmtree(root / ".agent-doc" / "snapshots", ignore_errors=True)
            argv = [CLI, "write", "doc.md", "--baseline-file", "baseline.md",
                    "--force-disk"]  # fmt: skip
            write_ms, _ = _wall(argv, root, response.encode())
            write_cpu = CPU["last"]
            merged = doc.read_text("utf-8")
            _check(merged, theirs, response)
            ours = next((root / ".agent-doc" / "snapshots").glob("*.md"))
            shutil.copy(ours, root / "ours.md")
            version_ms, _ = _wall([CLI, "--version"], root)
            version_cpu = CPU["last"]
            git_ms, out = _wall(
                ["git", "merge-file", "-p", "ours.md", "baseline.md", "doc.md"], root
            )
            if i == 0:
                conflicts = out.decode("utf-8").count("<<<<<<<")
                continue
            samples["write"].append(write_ms)
            samples["version"].append(version_ms)
            samples["git"].append(git_ms)
            cpu["write"].append(write_cpu - version_cpu)
            cpu["version"].append(version_cpu)
            cpu["git"].append(CPU["last"])
            ours_lines.append(write_ms - version_ms)
    med = {k: statistics.median(v) for k, v in samples.items()}
    net = statistics.median(ours_lines)
    ratio = net / med["git"]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"document {len(base.encode()) / 1000:.0f} KB, 20 user edits + "
          f"{response.count(chr(10))}-line answer, {runs} interleaved runs, "
          "median wall ms")  # fmt: skip
    print(f"{'measurement':52} {'ms':>8}")
    print(f"{'agent-doc write --baseline-file B --force-disk':52} {med['write']:8.1f}")
    print(f"{'agent-doc --version (start-up floor)':52} {med['version']:8.1f}")
    print(f"{'write minus --version (paired)':52} {net:8.1f}")
    print(f"{'git merge-file -p, same three texts':52} {med['git']:8.1f}")
    print(f"ratio (write − version) / git: {ratio:.2f}× (goal ≤ {GOAL}×) -> "
          f"{'OK' if ratio <= GOAL else 'OVER GOAL'}")  # fmt: skip
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"CPU ms (user+system, not slowed by other load): write − version "
          f"{cpu_med['write']:.1f}, --version {cpu_med['version']:.1f}, git "
          f"{cpu_med['git']:.1f}; ratio {cpu_med['write'] / max(cpu_med['git'], 0.1):.2f}×")  # fmt: skip
    print(f"conflicts: agent-doc 0 (checked every run), git merge-file {conflicts}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41)
    main(max(parser.parse_args().runs, 3))
