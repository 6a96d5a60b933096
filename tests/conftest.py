"""Shared fixtures: temp projects and real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

HEAVY = (
    "tests/editors/test_vscode_",
    "tests/editors/test_typing_vscode.py",
    "tests/share/test_serve_load.py",
    "tests/share/test_many_rooms.py",
)
"""Tests that keep a core busy on their own (a browser with code-server, a
server under load): under pytest-xdist's ``--dist loadgroup`` they run one at a
time, on one worker, while the other workers run the rest."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the :data:`HEAVY` tests in one ``xdist_group``."""
    for item in items:
        if item.nodeid.startswith(HEAVY):
            item.add_marker(pytest.mark.xdist_group("heavy"))


def _utf8(text: str) -> str:
    """``text`` with lone surrogates escaped (``\\ud800``): encodable as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    """Reports whose captured output or failure text holds a lone surrogate (the
    hostile-input tests log such text) made a pytest-xdist worker crash
    (execnet sends UTF-8): such text is escaped."""
    report: pytest.TestReport = yield  # type: ignore[misc]
    report.sections = [(title, _utf8(body)) for title, body in report.sections]
    if report.longrepr is not None:
        text = str(report.longrepr)
        if _utf8(text) != text:
            report.longrepr = _utf8(text)
    return report  # type: ignore[return-value]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with an empty ``.agent-doc/`` (a git repository too)."""
    root = tmp_path / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "config", "user.email", "t@example.invalid"],
        check=True,
    )
    subprocess.run(["git", "-C", str(root), "config", "user.name", "Test"], check=True)
    return root


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep tests away from the user's config, cache, runtime dirs and tmux."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    # short, as /run/user/<uid> is: sockets live there and a Unix socket's
    # path has at most 107 bytes (tmp_path under pytest-xdist is long)
    runtime = Path(tempfile.mkdtemp(prefix="agent-doc-run-"))  # mode 0700
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("TMUX_PANE", raising=False)
    monkeypatch.setenv("AGENT_DOC_NO_UPDATE_CHECK", "1")
    # Root discovery must never escape the test's folder into a stray
    # /tmp/.agent-doc or /tmp/.git left by something else on the machine.
    ceiling = str(tmp_path.parent)
    monkeypatch.setenv("AGENT_DOC_CEILING_DIRS", ceiling)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", ceiling)
    # Any tmux call a test did not point at its own private server lands on a
    # throwaway server, never on the user's default one.
    guard = f"agentdoc-guard-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("AGENT_DOC_TMUX_SOCKET", guard)
    yield
    if shutil.which("tmux"):
        subprocess.run(
            ["tmux", "-L", guard, "kill-server"], capture_output=True, check=False
        )
    os.environ.pop("AGENT_DOC_CLAUDE_ARGS", None)
    shutil.rmtree(runtime, ignore_errors=True)
