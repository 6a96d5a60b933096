"""Start-up cost of the CLI: median wall time from process start to exit.

Run: ``.venv/bin/python bench/bench_cli.py [--runs N]``. Prints a table for
``agent-doc --version``, ``agent-doc diff`` on a 100 KB document and
``agent-doc write`` to disk (targets: ≤120 ms for --version and diff).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = {"--version": 120.0, "diff (100 KB)": 120.0}


def _script() -> list[str]:
    exe = Path(sys.executable).parent / "agent-doc"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "agent_doc.cli.entry"]


def _time(argv: list[str], cwd: Path, stdin: bytes = b"") -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, check=True)
    return (time.perf_counter() - start) * 1000


def _document(size: int) -> str:
    parts = ["---\nagent_doc_format: template\n---\n\n# Bench\n\n"]
    parts.append("<!-- agent:status -->\nidle\n<!-- /agent:status -->\n\n")
    parts.append("<!-- agent:exchange -->\n")
    i = 0
    while sum(map(len, parts)) < size:
        parts.append(f"### Re: question {i}\n\nSome answer text, line {i}.\n\n")
        i += 1
    parts.append("## User\n\nnext question\n<!-- /agent:exchange -->\n")
    return "".join(parts)


def main() -> None:
    """Measure and print the table."""
    from _fixtures import compile_packages

    compile_packages()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = max(parser.parse_args().runs, 10)
    cli = _script()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".agent-doc").mkdir()
        doc = root / "doc.md"
        text = _document(100_000)
        doc.write_text(text)
        subprocess.run([*cli, "write", "doc.md"], cwd=root, check=True,
                       input=b"<!-- patch:status -->\nbusy\n<!-- /patch:status -->\n",
                       capture_output=True)  # fmt: skip
        doc.write_text(doc.read_text() + "a user edit\n")
        cases: dict[str, list[float]] = {"--version": [], "diff (100 KB)": [],
                                         "write to disk (100 KB)": []}  # fmt: skip
        for i in range(runs):
            cases["--version"].append(_time([*cli, "--version"], root))
            cases["diff (100 KB)"].append(_time([*cli, "diff", "doc.md"], root))
            response = f"<!-- patch:status -->\nrun {i}\n<!-- /patch:status -->\n"
            cases["write to disk (100 KB)"].append(
                _time([*cli, "write", "doc.md"], root, response.encode())
            )
        base = [_time([sys.executable, "-c", "pass"], root) for _ in range(runs)]
    print(f"{'command':<26} {'median ms':>10} {'min ms':>8} {'target':>8}")
    print(
        f"{'(python -c pass)':<26} {statistics.median(base):>10.1f} {min(base):>8.1f}"
    )
    for name, samples in cases.items():
        target = TARGET_MS.get(name)
        mark = f"≤{target:.0f}" if target else "-"
        print(
            f"{name:<26} {statistics.median(samples):>10.1f} "
            f"{min(samples):>8.1f} {mark:>8}"
        )
    print(f"runs per command: {runs}")


if __name__ == "__main__":
    main()
