"""``bench/run_all.py`` replaces only the sections of the benches it ran."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bench.run_all import merge_report

OLD = """# Benchmarks

Machine: old.

## Targets

T

## bench_a

old a

## bench_b

old b

## History

- 2026-11-01: a hand-written note
"""
HEADER = "# Benchmarks\n\nMachine: new.\n\n## Targets\n\nT2\n\n"


def test_a_subset_run_keeps_the_other_benches_and_the_history() -> None:
    report = merge_report(OLD, HEADER, {"bench_b": "## bench_b\n\nnew b\n"})

    assert "Machine: new." in report
    assert "Machine: old." not in report
    assert "old a" in report
    assert "new b" in report
    assert "old b" not in report
    assert report.rstrip().endswith("- 2026-11-01: a hand-written note")
    assert report.count("## Targets") == 1


def test_a_new_bench_goes_before_the_hand_written_sections() -> None:
    report = merge_report(OLD, HEADER, {"bench_c": "## bench_c\n\nc\n"})

    titles = [line for line in report.splitlines() if line.startswith("## ")]
    assert titles == [
        "## Targets",
        "## bench_a",
        "## bench_b",
        "## bench_c",
        "## History",
    ]


def test_a_first_report_is_the_header_and_the_fresh_sections() -> None:
    report = merge_report("", HEADER, {"bench_a": "## bench_a\n\na\n"})

    assert report == HEADER + "## bench_a\n\na\n"
