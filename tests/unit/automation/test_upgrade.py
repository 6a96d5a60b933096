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
from hypothesis import given
from hypothesis import strategies as st

from agent_doc import __version__
from agent_doc.automation import upgrade
from agent_doc.automation import upgrade_verify


class _Index(BaseHTTPRequestHandler):
    version = "99.0.0"
    name = "agent-doc-lsp"

    def do_GET(self) -> None:
        info = {"name": self.name, "version": self.version}
        body = json.dumps({"info": info}).encode()
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
    url = f"http://127.0.0.1:{server.server_address[1]}/pypi/agent-doc-lsp/json"
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


def test_the_check_asks_about_our_distribution_only() -> None:
    assert upgrade.DISTRIBUTION == "agent-doc-lsp"
    assert upgrade.DEFAULT_INDEX_URL == "https://pypi.org/pypi/agent-doc-lsp/json"


def test_an_index_answer_about_another_project_is_ignored(
    index: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Index, "name", "agent-doc")
    assert upgrade.fetch_latest() is None
    monkeypatch.setattr(_Index, "name", "Agent_Doc.LSP")
    assert upgrade.fetch_latest() == "99.0.0"


def test_version_comparison() -> None:
    assert upgrade.is_newer("1.0.1", "1.0.0")
    assert upgrade.is_newer("1.10", "1.9.9")
    assert upgrade.is_newer("2", "1.99")
    assert not upgrade.is_newer("1.0.0", "1.0.0")
    assert not upgrade.is_newer("1.0", "1.0.0")
    assert not upgrade.is_newer("0.9.10", "0.10.0")
    assert upgrade.is_newer("1.0.0", "1.0.0rc1")
    assert upgrade.is_newer("1.0.0", "1.0.0.dev3")
    assert not upgrade.is_newer("1.0.0", "1.0.0.post1")
    assert not upgrade.is_newer("1.0.0", "1.0.0+local")
    assert not upgrade.is_newer("2.0.0rc1", "1.0.0"), "pre-releases are not announced"
    assert not upgrade.is_newer("garbage", "1.0.0")
    assert not upgrade.is_newer(None, "1.0.0")


_SUFFIXES = ["", "rc1", "a2", "b1", ".dev4", ".post2", "+local.1", "rc1.dev1"]


@given(
    new=st.lists(st.integers(0, 30), min_size=1, max_size=4),
    have=st.lists(st.integers(0, 30), min_size=1, max_size=4),
    suffix=st.sampled_from(_SUFFIXES),
)
def test_version_comparison_agrees_with_pep440(
    new: list[int], have: list[int], suffix: str
) -> None:
    """Final releases against any current version: the same answer as packaging."""
    from packaging.version import Version

    candidate = ".".join(map(str, new))
    current = ".".join(map(str, have)) + suffix
    expected = Version(candidate) > Version(current)
    assert upgrade.is_newer(candidate, current) == expected


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
    assert "agent-doc-lsp 99.0.0 is available" in second.stderr
    third = _cli("hook", "poll", "x", "--root", str(tmp_path), env=env)
    assert "available" not in third.stderr


def test_upgrade_dry_run_prints_the_pip_command(index: str) -> None:
    result = _cli(
        "upgrade", "--from-index", "--dry-run", "--json", env=dict(os.environ)
    )
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
        "agent-doc-lsp",
    ]
    plain = _cli("upgrade", "--from-index", "--dry-run", env=dict(os.environ))
    assert plain.stdout.strip().endswith("-m pip install --upgrade agent-doc-lsp")


def test_upgrade_when_current(index: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_Index, "version", __version__)
    result = _cli("upgrade", "--from-index", "--dry-run", env=dict(os.environ))
    assert result.returncode == 0
    assert "up to date" in result.stderr
    assert result.stdout == ""


def _wheel(folder: Path, name: str, version: str, package: str) -> Path:
    """A minimal valid wheel of ``name`` that ships ``package/__init__.py``."""
    import zipfile

    stem = f"{name.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    files = {
        f"{package}/__init__.py": "",
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        ),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
    }
    files[f"{info}/RECORD"] = "".join(f"{f},,\n" for f in files) + f"{info}/RECORD,,\n"
    wheel = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        for member, text in files.items():
            zipped.writestr(member, text)
    return wheel


def test_provides_package_reads_wheels_and_sdists(tmp_path: Path) -> None:
    import tarfile

    ours = _wheel(tmp_path, "agent-doc-lsp", "9.0.0", "agent_doc_lsp")
    other = _wheel(tmp_path, "agent-doc", "9.0.0", "agent_doc_bootstrap")
    assert upgrade_verify.provides_package(ours)
    assert not upgrade_verify.provides_package(other)
    src = tmp_path / "src" / "agent_doc_lsp-9.0.0" / "agent_doc_lsp"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    sdist = tmp_path / "agent_doc_lsp-9.0.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as tarred:
        tarred.add(src.parent, arcname="agent_doc_lsp-9.0.0")
    assert upgrade_verify.provides_package(sdist)
    assert not upgrade_verify.provides_package(tmp_path / "missing.whl")


def test_upgrade_refuses_a_distribution_without_agent_doc_lsp(tmp_path: Path) -> None:
    """The index hands out an impostor under our name: nothing gets installed."""
    _wheel(tmp_path, "agent-doc-lsp", "99.0.0", "agent_doc")
    plan = upgrade.UpgradePlan(
        "0.1.0",
        "99.0.0",
        ("true", "-m", "pip", "install", "--upgrade", "agent-doc-lsp"),
    )
    options = ("--no-index", "--find-links", str(tmp_path))
    with pytest.raises(upgrade_verify.NotOurDistribution, match="agent_doc_lsp"):
        upgrade.run_upgrade(plan, options)


def test_upgrade_installs_the_verified_file(tmp_path: Path) -> None:
    """A genuine wheel is downloaded, checked and handed to the install command."""
    _wheel(tmp_path, "agent-doc-lsp", "99.0.0", "agent_doc_lsp")
    seen = tmp_path / "seen"
    recorder = f"import sys; open({str(seen)!r}, 'w').write(sys.argv[-1])"
    plan = upgrade.UpgradePlan(
        "0.1.0", "99.0.0", (sys.executable, "-c", recorder, "agent-doc-lsp")
    )
    options = ("--no-index", "--find-links", str(tmp_path))
    assert upgrade.run_upgrade(plan, options) == 0
    assert seen.read_text().endswith("agent_doc_lsp-99.0.0-py3-none-any.whl")
