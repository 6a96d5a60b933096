"""Per-turn commands as whole processes, each paired with ``python -c pass``.

An agent or an editor runs these on every turn: ``diff``, ``write``, ``patch``,
``preflight``, ``route``, ``status`` and ``outline`` (100 KB session document;
``route`` and ``status`` against a private tmux server with the document
claimed by a stand-in agent, ``route`` repeated within its ``--debounce``
window so it measures the command, not the agent). Every sample runs the
interpreter's floor, ``python -c pass`` from the same venv, right before the
command; the ratio is the median of the per-pair ratios.

Goal: every command ≤ 3× ``python -c pass``.

Run: ``.venv/bin/python bench/bench_turn_commands.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_cli import _document

GOAL = 3.0
CLI = str(Path(sys.executable).with_name("agent-doc"))
FAKE = Path(__file__).resolve().parents[1] / "tests" / "data" / "fake_agent.py"
STATUS = "<!-- patch:status -->\nrun {i}\n<!-- /patch:status -->\n"


def _wall(argv: list[str], cwd: Path, stdin: bytes = b"") -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, check=False)
    took = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed: {proc.stderr.decode()[-400:]}")
    return took


def _setup(root: Path, socket: str) -> None:
    git = ["git", "-C", str(root)]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "config", "user.email", "b@example.invalid"], check=True)
    subprocess.run([*git, "config", "user.name", "bench"], check=True)
    (root / ".agent-doc").mkdir()
    doc = root / "doc.md"
    doc.write_text(
        _document(100_000).replace(
            "template\n", f"template\nagent_doc_session: {uuid.uuid4()}\n", 1
        )
    )
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d",
                    "-s", "main", "-x", "200", "-y", "50", "/bin/sh"], check=True)  # fmt: skip
    pane = subprocess.run(
        ["tmux", "-L", socket, "new-window", "-d", "-P", "-F", "#{pane_id}",
         f"exec {sys.executable} {FAKE}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    subprocess.run([CLI, "claim", "doc.md", "--pane", pane], cwd=root, check=True,
                   capture_output=True)  # fmt: skip
    subprocess.run([CLI, "write", "doc.md"], cwd=root, check=True,
                   input=STATUS.format(i=0).encode(), capture_output=True)  # fmt: skip
    subprocess.run([CLI, "route", "doc.md"], cwd=root, check=False,
                   capture_output=True, timeout=30)  # fmt: skip


def main(runs: int) -> None:
    """Measure and print the table."""
    from _fixtures import compile_packages

    compile_packages()
    socket = f"agentdoc-bench-{uuid.uuid4().hex[:8]}"
    os.environ["AGENT_DOC_TMUX_SOCKET"] = socket
    os.environ.pop("TMUX_PANE", None)
    os.environ.pop("TMUX", None)
    commands: dict[str, tuple[list[str], str]] = {
        "diff": (["diff", "doc.md"], ""),
        "write": (["write", "doc.md"], STATUS),
        "patch": (["patch", "doc.md", "status", "p{i}"], ""),
        "preflight": (["preflight", "doc.md", "--no-wait"], ""),
        "route": (["route", "doc.md", "--debounce", "600000"], ""),
        "status": (["status", "--json"], ""),
        "outline": (["outline", "doc.md"], ""),
    }
    floor: list[float] = []
    ratios: dict[str, list[float]] = {name: [] for name in commands}
    walls: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="ad-bench-") as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        try:
            _setup(root, socket)
            for i in range(runs + 1):
                for name, (args, stdin) in commands.items():
                    base = _wall([sys.executable, "-c", "pass"], root)
                    (root / "doc.md").open("a").write(f"user edit {i}\n")
                    argv = [CLI, *(a.format(i=i) for a in args)]
                    took = _wall(argv, root, stdin.format(i=i).encode())
                    if i:
                        floor.append(base)
                        walls[name].append(took)
                        ratios[name].append(took / base)
        finally:
            subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"100 KB document, {runs} paired runs per command, median wall ms")
    print(
        f"{'command':12} {'ms':>8} {'python -c pass':>15} {'ratio':>7}  goal ≤ {GOAL:g}×"
    )
    med = statistics.median
    for name in commands:
        ratio = med(ratios[name])
        mark = "ok" if ratio <= GOAL else "OVER"
        print(
            f"{name:12} {med(walls[name]):8.1f} {med(floor):15.1f} {ratio:7.2f}  {mark}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    main(max(parser.parse_args().runs, 3))
