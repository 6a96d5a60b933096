"""Fixtures of the editor tests: the real-VS-Code harness (see README.md)."""

from __future__ import annotations

import pytest

from tests.editors.vscode_fixtures import TIMINGS
from tests.editors.vscode_fixtures import vscode

__all__ = ["vscode"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the time the real-VS-Code harness took (install and each run)."""
    if not TIMINGS:
        return
    terminalreporter.section("real VS Code (code-server) time")
    for phase, seconds in TIMINGS.items():
        terminalreporter.write_line(f"{phase:<40} {seconds:6.1f} s")
    terminalreporter.write_line(f"{'total':<40} {sum(TIMINGS.values()):6.1f} s")
