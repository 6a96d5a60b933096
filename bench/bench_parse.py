"""Benchmark the per-keystroke document model: code ranges and component parse.

Builds a ~1 MB / ~20k-line document with many components, fences and code
spans, and prints the median milliseconds over N runs.

    .venv/bin/python bench/bench_parse.py [runs]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from agent_doc.document.boundary import find_boundaries
from agent_doc.document.codeblocks import block_ranges
from agent_doc.document.codeblocks import code_ranges
from agent_doc.document.components import clear_scan_memos
from agent_doc.document.components import parse_components
from agent_doc.document.components import scan_components


def build_document(target_chars: int = 1_000_000) -> str:
    """A realistic session document of about ``target_chars`` characters."""
    parts = ["---\nagent_doc_session: 1234\n---\n# Bench\n\n<!-- agent:exchange -->\n"]
    size = len(parts[0])
    i = 0
    prose = (
        "Another line of ordinary text that goes on for a while, émoji 🎉 and"
        " some more words so that the line is of a typical prose length.\n"
    ) * 5
    while size < target_chars:
        chunk = (
            f"### Re: question {i} about `thing_{i}` and more words here\n\n"
            f"Some prose with a `code span` and ``double `tick` span`` number {i}, "
            "followed by enough ordinary words to make a long paragraph line.\n"
            + prose
            + f"<!-- agent:note-{i} patch=append -->\n"
            f"note body {i} with `inline` code\n"
            f"<!-- /agent:note-{i} -->\n\n"
            "```python\n"
            "def f(x):\n"
            "    return x  # <!-- agent:fake -->\n"
            "```\n\n"
            "- list item with `inline` code and a few more words in it\n"
            "- another item\n\n"
        )
        parts.append(chunk)
        size += len(chunk)
        i += 1
    parts.append("<!-- agent:boundary:abcd1234 -->\n<!-- /agent:exchange -->\n")
    return "".join(parts)


def timings_ms(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and minimum wall time of ``fn`` in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def cold(fn: Callable[[str], object], text: str) -> object:
    """Call ``fn`` with the scan memos emptied (a first parse)."""
    clear_scan_memos()
    return fn(text)


def main() -> None:
    """Print the table."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    text = build_document()
    lines = text.count("\n")
    print(f"document: {len(text):,} chars, {lines:,} lines, {runs} runs")
    rows = [
        ("block_ranges (fences, cold)", lambda: cold(block_ranges, text)),
        ("code_ranges (fences + spans, cold)", lambda: cold(code_ranges, text)),
        ("parse_components (cold)", lambda: cold(parse_components, text)),
        ("scan_components (cold)", lambda: cold(scan_components, text)),
        ("scan_components (memoised)", lambda: scan_components(text)),
        ("find_boundaries (cold)", lambda: cold(find_boundaries, text)),
    ]
    print(f"{'operation':<32} {'median ms':>10} {'min ms':>8}")
    print("-" * 52)
    for name, fn in rows:
        med, low = timings_ms(fn, runs)
        print(f"{name:<32} {med:>10.2f} {low:>8.2f}")
    print(f"components: {len(parse_components(text)):,}")


if __name__ == "__main__":
    main()
