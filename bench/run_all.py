"""Run every benchmark and write their tables to ``docs/benchmarks.md``.

Run: ``.venv/bin/python bench/run_all.py`` (add ``--only merge,cli`` for a
subset, ``--no-write`` to only print). Each ``bench/bench_*.py`` prints its own
table with its targets; this script records them with the machine they ran on.
Only the ``## bench_*`` sections it ran are replaced: the other benches'
sections (with ``--only``) and every hand-written section (``## History``,
notes) stay as they are in the file.

The user-facing benchmarks of issue 17 each print their reference measured in
the same run (``git merge-file``, ``python -c pass``, VS Code's markdown server):
``write_merge``, ``turn_commands``, ``patch_roundtrip``, ``lsp_wire``. Compare
ratios, not absolute times, when the machine is loaded. Bytecode is compiled
first (an installed package has it; ``PYTHONDONTWRITEBYTECODE`` would otherwise
make every process compile agent-doc from source). The whole run takes about
3–4 minutes on 2 idle cores (the first run also installs the peer from npm).
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
USER_WAITS = """\
### What users wait for (issue 17): each beside its reference from the same run

| what | reference in the same run | goal | bench |
|---|---|---|---|
| `agent-doc write --baseline-file B --force-disk`, 20 concurrent edits + 50-line answer into 835 KB, minus `agent-doc --version` | `git merge-file -p` on the same three texts | ≤ 2.5× | `bench_write_merge` |
| patch round trip, `agent-doc write` start → edit applied in the client buffer, 100 KB | `python -c pass` | ≤ 2× | `bench_patch_roundtrip` |
| `textDocument/documentSymbol` over stdio, 810 KB / 200 components / ~1,200 symbols, wall at the client | vscode-markdown-language-server | ≤ 20 ms and ≤ 1/17 | `bench_lsp_wire` |
| `textDocument/foldingRange`, same file | vscode-markdown-language-server | keep | `bench_lsp_wire` |
| per-turn commands (diff, write, patch, preflight, route, status, outline) | `python -c pass`, paired | ≤ 3× | `bench_turn_commands` |

Read the ratios, not the milliseconds, when the load average above is high: the
references run interleaved with our samples, so both see the same load (on a
busy 2-core machine a process's wall time is mostly waiting for a core, which
inflates the longer process more). `bench_write_merge` also prints CPU time
(user + system of the processes), which other load barely changes. Its wall
time includes the fsyncs of the document and of `.agent-doc/` state (pending,
expected digest, snapshot), which `git merge-file` does not do.
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_bytecode() -> None:
    """Write ``__pycache__`` for agent-doc, as an installed package has it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "agent_doc", "agent_doc_lsp"],
        cwd=ROOT, env=_env(), capture_output=True, check=False,
    )  # fmt: skip


def run_bench(path: Path) -> tuple[str, float]:
    """Run one bench script; return its output and wall time in seconds."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    out = proc.stdout.rstrip()
    if proc.returncode != 0:
        out += f"\n(exit {proc.returncode})\n{proc.stderr.strip()[-2000:]}"
    return out, time.monotonic() - started


def split_sections(text: str) -> list[tuple[str, str]]:
    """``(title, whole section)`` for each ``## `` section of ``text``, in order."""
    parts = text.split("\n## ")
    return [(part.split("\n", 1)[0].strip(), "## " + part) for part in parts[1:]]


def merge_report(old: str, header: str, fresh: dict[str, str]) -> str:
    """The report: ``header``, then every section of ``old`` after its targets,
    with the benches in ``fresh`` replaced (new benches added in name order
    before the hand-written sections)."""
    kept = [(t, body) for t, body in split_sections(old) if t != "Targets"]
    titles = {t for t, _ in kept}
    out = []
    for title, body in kept:
        out.append(fresh.get(title, body).rstrip("\n") + "\n")
    missing = sorted(t for t in fresh if t not in titles)
    first_notes = next(
        (i for i, (t, _) in enumerate(kept) if not t.startswith("bench_")), len(kept)
    )
    for offset, title in enumerate(missing):
        out.insert(first_notes + offset, fresh[title].rstrip("\n") + "\n")
    return header + "\n".join(out)


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
    compile_bytecode()
    load = os.getloadavg()[0]
    began = time.monotonic()
    sections: dict[str, str] = {}
    for script in scripts:
        print(f"== {script.name}", flush=True)
        out, took = run_bench(script)
        print(out, flush=True)
        sections[script.stem] = (
            f"## {script.stem}\n\n```\n{out}\n```\n\n({took:.0f} s)\n"
        )
    if args.no_write:
        return 0
    header = (
        "# Benchmarks\n\n"
        "Measured by `bench/run_all.py`, which runs every `bench/bench_*.py` and "
        "records its printed table. Numbers are wall or CPU time as each script "
        "states; they vary with machine load, so each script prints medians.\n\n"
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average at start {load:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; the whole run "
        f"took {time.monotonic() - began:.0f} s.\n\n"
        "## Targets\n\n" + TARGETS + "\n" + USER_WAITS + "\n"
    )
    report = ROOT / "docs" / "benchmarks.md"
    old = report.read_text(encoding="utf-8") if report.exists() else ""
    report.write_text(merge_report(old, header, sections), encoding="utf-8")
    print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
