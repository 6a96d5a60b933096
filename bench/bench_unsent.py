"""Cost of the "will be sent" marks (``agent_doc.editor.unsent``), 1 MB / 20k lines.

Run: ``.venv/bin/python bench/bench_unsent.py``. The marks are computed in the
debounced diagnostics run (``diagnosticsDebounceMs`` after the last keystroke),
never per keystroke, and cached per buffer version; the snapshot is read once
per change of its file. Target: ≤ 20 ms per run on 1 MB (the diagnostics budget).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from agent_doc.editor.unsent import UnsentBaseline

TARGET_MS = 20.0


def make_document(lines: int) -> str:
    """A template session document with ``lines`` lines of answers (~1 MB)."""
    parts = ["---\nagent_doc_session: 1\n---\n<!-- agent:exchange -->\n"]
    for i in range(lines // 4):
        parts.append(f"### Re: question {i}\n\n{'answer text ' * 16}{i}\n\n")
    parts.append("<!-- /agent:exchange -->\n")
    return "".join(parts)


def scattered(text: str, edits: int) -> str:
    """``text`` with ``edits`` lines changed, spread evenly, and a comment."""
    lines = text.split("\n")
    step = max(len(lines) // (edits + 1), 1)
    for k in range(1, edits + 1):
        lines[k * step] += " (edited)"
    lines.insert(len(lines) // 2, "<!-- a private note -->")
    return "\n".join(lines)


def median_ms(fn: Callable[[], Any], repeat: int = 15) -> float:
    """Median CPU ms of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    """Measure and print the table."""
    snapshot = make_document(20_000)
    typed_end = snapshot.replace(
        "<!-- /agent:exchange -->", "a new question\n<!-- /agent:exchange -->"
    )
    cases = {
        "no change": snapshot,
        "one line typed at the end": typed_end,
        "20 scattered edits + a comment": scattered(snapshot, 20),
        "200 scattered edits": scattered(snapshot, 200),
    }
    size = len(snapshot.encode()) / 1e6
    lines = snapshot.count("\n")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"document: {size:.2f} MB, {lines} lines; median CPU time")
    print(f"{'case':<40}{'ms':>10}{'target':>10}  ok  marks")
    prepare = median_ms(lambda: UnsentBaseline(snapshot))
    print(f"{'prepare the snapshot (once per snapshot)':<40}{prepare:>10.2f}{'-':>10}")
    baseline = UnsentBaseline(snapshot)
    for name, current in cases.items():
        ms = median_ms(lambda current=current: baseline.changes(current))
        marks = len(baseline.changes(current).marks)
        ok = "yes" if ms <= TARGET_MS else "NO"
        print(f"{name:<40}{ms:>10.2f}{'≤ 20':>10}  {ok:<3} {marks}")


if __name__ == "__main__":
    main()
