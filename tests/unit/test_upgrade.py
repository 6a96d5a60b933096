"""Version check against a local index (127.0.0.1), the cache, the start-up notice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_doc import __version__
from agent_doc.automation import upgrade


class _Index(BaseHTTPRequestHandler):
    version = "99.0.0"

    def do_GET(self) -> None:
        body = json.dumps({"info": {"version": self.version}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/pypi/agent-doc/json"
    monkeypatch.setenv("AGENT_DOC_INDEX_URL", url)
    monkeypatch.delenv("AGENT_DOC_NO_UPDATE_CHECK")
    yield url
    server.shutdown()
    server.server_close()


def _closed_port_url() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/json"


def test_fetch_latest_and_silent_failure(index: str) -> None:
    assert upgrade.fetch_latest() == "99.0.0"
    assert upgrade.fetch_latest(_closed_port_url()) is None


def test_refresh_writes_the_cache_and_notice_is_once_per_day(index: str) -> None:
    assert upgrade.refresh_cache() == "99.0.0"
    data = json.loads(upgrade.cache_path().read_text())
    assert data["latest"] == "99.0.0"
    assert data["url"] == index
    now = time.time()
    notice = upgrade.startup_notice(now)
    assert notice is not None
    assert "99.0.0" in notice
    assert __version__ in notice
    assert upgrade.startup_notice(now + 60) is None


def test_disabled_by_environment(index: str, monkeypatch: pytest.MonkeyPatch) -> None:
    upgrade.refresh_cache()
    monkeypatch.setenv("AGENT_DOC_NO_UPDATE_CHECK", "1")
    assert upgrade.startup_notice() is None


def test_version_comparison() -> None:
    assert upgrade.is_newer("1.0.1", "1.0.0")
    assert not upgrade.is_newer("1.0.0", "1.0.0")
    assert not upgrade.is_newer("garbage", "1.0.0")
    assert not upgrade.is_newer(None, "1.0.0")


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        capture_output=True, text=True, timeout=60, env=env, cwd=Path.cwd(),
    )  # fmt: skip


def test_startup_check_refreshes_in_background_then_warns(
    index: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AGENT_DOC_NO_UPDATE_CHECK"}
    cache = upgrade.cache_path()
    assert _cli("--version", env=env).returncode == 0
    assert not cache.exists()  # the fast path never checks
    first = _cli("hook", "poll", "x", "--root", str(tmp_path), env=env)
    assert first.returncode == 0
    assert "available" not in first.stderr
    deadline = time.monotonic() + 20
    while "latest" not in (cache.read_text() if cache.exists() else ""):
        assert time.monotonic() < deadline, "background refresh did not run"
        time.sleep(0.05)
    second = _cli("hook", "poll", "x", "--root", str(tmp_path), env=env)
    assert "agent-doc 99.0.0 is available" in second.stderr
    third = _cli("hook", "poll", "x", "--root", str(tmp_path), env=env)
    assert "available" not in third.stderr


def test_upgrade_dry_run_prints_the_pip_command(index: str) -> None:
    result = _cli("upgrade", "--dry-run", "--json", env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["latest"] == "99.0.0"
    assert data["needed"] is True
    assert data["command"] == [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--upgrade",
        "agent-doc",
    ]
    plain = _cli("upgrade", "--dry-run", env=dict(os.environ))
    assert plain.stdout.strip().endswith("-m pip install --upgrade agent-doc")


def test_upgrade_when_current(index: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_Index, "version", __version__)
    result = _cli("upgrade", "--dry-run", env=dict(os.environ))
    assert result.returncode == 0
    assert "up to date" in result.stderr
    assert result.stdout == ""
