"""preflight's settling wait: bounded, and only as long as the edit is fresh."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent_doc.cycle.preflight import wait_until_settled


def test_fresh_file_waits_for_the_debounce_window(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("x")
    waited = wait_until_settled(doc, None, debounce_ms=300, typing_ms=0)
    assert 0.2 <= waited < 1.5
    assert time.time() - doc.stat().st_mtime >= 0.3


def test_old_file_does_not_wait(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("x")
    old = time.time() - 60
    os.utime(doc, (old, old))
    assert wait_until_settled(doc, None, debounce_ms=500, typing_ms=1500) < 0.1
