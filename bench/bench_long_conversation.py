"""The cost curve of a long conversation (issue 30, items 1 and 4).

Session documents of 10, 100, 1,000 and 5,000 turns (about 3.8 KB a turn, so
5,000 turns ≈ 19 MB; :mod:`bench._long_docs`), each in a git repository as N
turns of ``agent-doc run`` leave it, and one line typed by the person. Per
size: ``run`` up to the agent call, ``write`` with a merge, ``diff`` and
``preflight`` as whole processes with their peak RSS (:mod:`bench._long_cli`);
the real ``agent-doc-lsp``'s didOpen, documentSymbol, one keystroke's
didChange, the debounced diagnostics run with the "will be sent" marks, and
its peak RSS (:mod:`bench._long_lsp`). Then, on the largest document, typing in
Neovim with and without the server (:mod:`bench._long_nvim`).

Goals: for a one-line change, every per-turn command and per-keystroke measure
of the largest document costs ≤ 2× that of the document nearest 100 KB; peak
memory ≤ 3× the document (measured above the process's floor: ``agent-doc
--version`` for the CLI, the server right after ``initialize``).

Run: ``.venv/bin/python bench/bench_long_conversation.py [--sizes 10,100,1000,5000]
[--runs N] [--no-nvim]`` (the 5,000-turn size takes at most 3 samples).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import compile_packages
from bench._long_cli import LAUNCH
from bench._long_cli import Launcher
from bench._long_cli import configure_agent
from bench._long_cli import fresh_copy
from bench._long_cli import one_round
from bench._long_docs import make_repository
from bench._long_docs import type_line
from bench._long_lsp import KEYS
from bench._long_lsp import measure_in_process
from bench._long_lsp import measure_server

SERVER = str(Path(sys.executable).with_name("agent-doc-lsp"))
TIME_GOAL = 2.0
MEMORY_GOAL = 3.0
COLUMNS = [  # (key, header, per-turn or per-keystroke: judged against 2×)
    ("run", "run→agent", True),
    ("write", "write merge", True),
    ("diff", "diff", True),
    ("preflight", "preflight", True),
    ("didOpen", "didOpen", False),
    ("documentSymbol", "docSymbol", True),
    ("didChange CPU", "didChange CPU", True),
    ("didChange wire", "didChange wire", True),
    ("diagnostics run", "diag+marks run", True),
    ("marks CPU", "marks CPU", True),
]
MEMORY = [("run", "run"), ("write", "write"), ("diff", "diff"),
          ("preflight", "preflight"), ("server peak MB", "server")]  # fmt: skip
WHOLE = {
    "run": "reads the document, the snapshot and the CRDT state and hashes the "
    "file for git status; the prompt of a resumed session is small",
    "write": "the merge reads baseline, document and snapshot and writes the "
    "whole document, its snapshot and CRDT state back",
    "diff": "reads the document and the snapshot and compares them",
    "preflight": "its JSON carries the whole document (spec §7.26), and it "
    "diffs like diff",
    "didOpen": "the editor sends the whole text; the server checks it at once",
}


def private_env(tmp: Path) -> None:
    """Private config, cache and runtime folders (no user state, no servers)."""
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"),
                     ("XDG_RUNTIME_DIR", "run")):  # fmt: skip
        (tmp / sub).mkdir(mode=0o700)
        os.environ[var] = str(tmp / sub)
    os.environ["AGENT_DOC_NO_UPDATE_CHECK"] = "1"
    for var in ("TMUX", "TMUX_PANE", "PYTHONDONTWRITEBYTECODE"):
        os.environ.pop(var, None)
    configure_agent(tmp / "config")


def measure_size(tmp: Path, turns: int, runs: int) -> tuple[dict[str, float], Path]:
    """Every measure of one size (medians); return them and the repository."""
    work = tmp / "work"  # state is keyed by the document's path: always here
    shutil.rmtree(work, ignore_errors=True)
    make_repository(work, turns)
    root = tmp / f"pristine{turns}"
    fresh_copy(work, root)
    check_one_line_diff(work)
    rounds = [one_round(root, work) for _ in range(runs)]
    fresh_copy(root, work)
    pristine = work / "doc.md"
    med = statistics.median
    row: dict[str, float] = {}
    for key in rounds[0]:
        row[key] = med(r[key].ms for r in rounds)
        row[key + " MB"] = max(r[key].rss_mb for r in rounds)
    text = type_line(pristine.read_text("utf-8"))
    snapshot = next((root / ".agent-doc" / "snapshots").glob("*.md")).read_text()
    row["bytes"] = len(text.encode())
    row.update(measure_server(SERVER, work, pristine, text))
    row.update(measure_in_process(text, snapshot))
    return row, root


def check_one_line_diff(work: Path) -> None:
    """The typed line is the whole diff (the snapshot is found, not missing)."""
    doc = work / "doc.md"
    doc.write_text(type_line(doc.read_text("utf-8")), "utf-8")
    cli = str(Path(sys.executable).with_name("agent-doc"))
    out = subprocess.run([cli, "diff", "doc.md"], cwd=work, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    if "+One more question" not in out or len(out) > 2000:
        raise SystemExit(f"the diff is not the one typed line: {out[:300]!r}")


def reference(rows: dict[int, dict[str, float]]) -> int:
    """The size whose document is nearest 100 KB (on a log scale)."""
    import math

    return min(rows, key=lambda t: abs(math.log(rows[t]["bytes"] / 100_000)))


def print_table(rows: dict[int, dict[str, float]], runs: int) -> None:
    """The cost curve, the ratios to the ~100 KB row and the memory."""
    ref, top = reference(rows), max(rows)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"one line typed since the last answer; CLI: median wall ms of {runs} "
          "whole processes (3 at 5,000 turns); server: median ms at the client "
          "(didOpen, documentSymbol, didChange wire, diagnostics run) or CPU in "
          "process (didChange CPU, marks CPU)\n")  # fmt: skip
    head = ["turns", "MB", *(h for _k, h, _j in COLUMNS)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for turns, row in rows.items():
        cells = [f"{turns:,}", f"{row['bytes'] / 1e6:.2f}"]
        cells += [f"{row[k]:.1f}" for k, _h, _j in COLUMNS]
        print("| " + " | ".join(cells) + " |")
    if top != ref:
        cells = [
            f"{top:,} ÷ {ref:,}",
            f"{rows[top]['bytes'] / rows[ref]['bytes']:.0f}×",
        ]
        for key, _h, judged in COLUMNS:
            ratio = rows[top][key] / max(rows[ref][key], 0.01)
            mark = ("ok" if ratio <= TIME_GOAL else "OVER") if judged else "-"
            cells.append(f"{ratio:.1f}× {mark}")
        print("| " + " | ".join(cells) + " |")
    print(f"\npeak RSS, MB (from 1 MB: above the floor ÷ document; goal ≤ {MEMORY_GOAL:g}×); "
          "floor: agent-doc --version, the server after initialize\n")  # fmt: skip
    head = ["turns", "MB", *(h for _k, h in MEMORY)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for turns, row in rows.items():
        size = row["bytes"] / 1e6
        cells = [f"{turns:,}", f"{size:.2f}"]
        for key, _h in MEMORY:
            peak = row[key if key.endswith("MB") else key + " MB"]
            floor = (
                row["server idle MB"] if key.startswith("server") else row["version MB"]
            )
            ratio = (peak - floor) / size
            mark = ("ok" if ratio <= MEMORY_GOAL else "OVER") if turns == top else ""
            shown = f" ({ratio:.1f}× {mark})".replace(" )", ")") if size >= 1 else ""
            cells.append(f"{peak:.0f}{shown}")
        print("| " + " | ".join(cells) + " |")
    full = rows[top]
    print(
        "\nrun, whole process (agent answer written and committed): "
        + ", ".join(f"{t:,} turns {r['run whole']:.0f} ms" for t, r in rows.items())
    )
    print(
        f"didChange wire, slowest of {KEYS} keystrokes at "
        f"{top:,} turns: {full['didChange wire max']:.1f} ms; marks published: "
        f"{full['marks']:.0f}; documentSymbol right after didOpen: "
        f"{full['documentSymbol first']:.0f} ms"
    )
    print("\nread the whole document, so they grow with it:")
    for key, why in WHOLE.items():
        print(f"- {key}: {why}")


def main() -> int:
    """Measure every size and print the table (then the Neovim measure)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,5000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-nvim", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    compile_packages()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ad-long-") as name:
        tmp = Path(name)
        private_env(tmp)
        launcher = Launcher()  # while this process is small (see _long_cli)
        LAUNCH.append(launcher)
        rows: dict[int, dict[str, float]] = {}
        roots: dict[int, Path] = {}
        for turns in sizes:
            runs = min(args.runs, 3) if turns >= 5000 else args.runs
            rows[turns], roots[turns] = measure_size(tmp, turns, max(runs, 1))
        launcher.close()
        print_table(rows, args.runs)
        if not args.no_nvim:
            from bench._long_nvim import measure_neovim

            top = max(rows)
            measure_neovim(roots[top], tmp / "work", top, rows[top])
    print(f"\n(took {time.monotonic() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
