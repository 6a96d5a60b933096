"""Benchmark of ``merge_texts``: median and p95 over repeated runs.

Run: ``.venv/bin/python bench/bench_merge.py [runs]``. Cases: a 1 MB / 20k-line
document with 20 scattered user edits while the agent inserts a response in the
middle, and a 100 KB document with the same shape.
"""

from __future__ import annotations

import statistics
import sys
import time

from agent_doc.document.merge import merge_texts


def document(lines: int) -> list[str]:
    """Markdown-ish lines with non-ASCII text and blank lines."""
    return [
        f"Line {i}: some prose about the document, é and 😀 here {i * 7}\n"
        if i % 5
        else "\n"
        for i in range(lines)
    ]


def case(lines: int, edits: int) -> tuple[str, str, str]:
    """``(base, ours, theirs)`` with ``edits`` user edits spread evenly."""
    base = document(lines)
    user = list(base)
    step = lines // edits
    for k in range(edits):
        i = k * step + step // 2 + 1
        if k % 3 == 0:
            user[i] = user[i].replace("prose", "prose edited by the user")
        elif k % 3 == 1:
            user.insert(i, f"A new line typed by the user ({k}).\n")
        else:
            del user[i]
    middle = lines // 2
    response = ["### Re: the question\n", "\n", "The answer, in two lines.\n"]
    ours = base[:middle] + response + base[middle:]
    return "".join(base), "".join(ours), "".join(user)


def measure(base: str, ours: str, theirs: str, runs: int) -> tuple[float, float]:
    """Median and p95 wall time in milliseconds."""
    merge_texts(base, ours, theirs)  # warm up pycrdt
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        merge_texts(base, ours, theirs)
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    return statistics.median(timings), timings[int(0.95 * (len(timings) - 1))]


def main() -> None:
    """Print the benchmark table."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    print(f"{'case':<34} {'bytes':>9} {'lines':>6} {'median ms':>10} {'p95 ms':>8}")
    for name, lines in (
        ("1 MB, 20 user edits + response", 20_000),
        ("100 KB, 20 user edits + response", 2_000),
    ):
        base, ours, theirs = case(lines, 20)
        median, p95 = measure(base, ours, theirs, runs)
        size = len(base.encode("utf-8"))
        print(f"{name:<34} {size:>9} {lines:>6} {median:>10.1f} {p95:>8.1f}")


if __name__ == "__main__":
    main()
