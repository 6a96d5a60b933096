"""Install what the real-VS-Code tests need, from the registries only, cached.

* code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20) from
  npm, by ``scripts/install_code_server.sh`` into
  ``~/.cache/agent-doc-vscode/code-server-4.100.3`` (``AGENT_DOC_VSCODE_CACHE``
  moves the cache);
* the extension's ``.vsix``, built from ``editors/vscode`` with ``npm ci``,
  ``npm run compile`` and ``npx @vscode/vsce package`` in a cached build folder,
  reused while the extension's sources are unchanged (keyed by their hash).

Chromium, ripgrep and libkrb5-dev come from Debian (``.ci/run`` installs them).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.editors.harness import EDITORS
from tests.editors.harness import REPO

CODE_SERVER_VERSION = "4.100.3"
CHROMIUM = "/usr/bin/chromium"
EXTENSION = EDITORS / "vscode"
KEEP_VSIX_BUILDS = 6


class NotInstallable(Exception):
    """The harness cannot be installed here (the message says why)."""


def cache_dir() -> Path:
    """The harness cache (``AGENT_DOC_VSCODE_CACHE`` or ``~/.cache/agent-doc-vscode``)."""
    explicit = os.environ.get("AGENT_DOC_VSCODE_CACHE")
    if explicit:
        return Path(explicit)
    return Path.home() / ".cache" / "agent-doc-vscode"


def registry_unreachable() -> str | None:
    """Why the npm registry cannot be used, or ``None`` when it answers."""
    try:
        ping = subprocess.run(
            ["npm", "ping", "--fetch-retries=0", "--fetch-timeout=15000"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the npm registry did not answer `npm ping`: {exc}"
    if ping.returncode != 0:
        lines = [ln for ln in ping.stderr.splitlines() if ln.startswith("npm error")]
        return f"the npm registry is not reachable: {' / '.join(lines[:2])[:200]}"
    return None


def _missing_tools() -> str | None:
    """The first missing system tool, as a skip reason."""
    for tool, package in (("node", "nodejs"), ("npm", "npm"), ("rg", "ripgrep")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian package {package})"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is not installed (Debian package chromium)"
    return None


def _run(args: list[str], cwd: Path, timeout: float, what: str) -> str:
    """Run an install step; raise with its output when it fails."""
    proc = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        reason = registry_unreachable()
        if reason:
            raise NotInstallable(reason)
        raise RuntimeError(
            f"{what} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc.stdout


def ensure_code_server() -> Path:
    """The ``code-server`` launcher, installed (once) into the cache."""
    missing = _missing_tools()
    if missing:
        raise NotInstallable(missing)
    script = REPO / "scripts" / "install_code_server.sh"
    env_cache = str(cache_dir())
    if not (cache_dir() / f"code-server-{CODE_SERVER_VERSION}" / ".complete").exists():
        reason = registry_unreachable()  # fail fast before a long install
        if reason:
            raise NotInstallable(reason)
    proc = subprocess.run(
        ["bash", str(script)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "AGENT_DOC_VSCODE_CACHE": env_cache},
    )
    if proc.returncode != 0:
        reason = registry_unreachable()
        if reason:
            raise NotInstallable(reason)
        raise RuntimeError(f"install_code_server.sh failed:\n{proc.stderr[-4000:]}")
    root = Path(proc.stdout.strip().splitlines()[-1])
    return root / "node_modules" / ".bin" / "code-server"


def _source_hash() -> str:
    """Hash of everything that goes into the ``.vsix``."""
    digest = hashlib.sha256()
    files = [
        EXTENSION / n for n in ("package.json", "package-lock.json", "tsconfig.json")
    ]
    files += [EXTENSION / n for n in ("README.md", "LICENSE.md")]
    files += sorted((EXTENSION / "src").rglob("*.ts"))
    for path in files:
        digest.update(str(path.relative_to(EXTENSION)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def ensure_vsix() -> Path:
    """The extension packaged as a ``.vsix`` (rebuilt when its sources change)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with (cache_dir() / ".vsix.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time per cache
        return _build_vsix()


def _build_vsix() -> Path:
    """Build (or find in the cache) the ``.vsix`` of the current sources."""
    version = json.loads((EXTENSION / "package.json").read_text("utf-8"))["version"]
    key = _source_hash()
    out = cache_dir() / "vsix" / key / f"agent-doc-{version}.vsix"
    if out.is_file():
        return out
    build = cache_dir() / "vsix-build"
    lock = (EXTENSION / "package-lock.json").read_bytes()
    stamp = build / ".lock-hash"
    lock_hash = hashlib.sha256(lock).hexdigest()
    fresh = not (stamp.is_file() and stamp.read_text() == lock_hash)
    for name in ("src", "out"):
        shutil.rmtree(build / name, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json", "tsconfig.json", "README.md",
                 "LICENSE.md", ".vscodeignore"):  # fmt: skip
        if (EXTENSION / name).exists():
            shutil.copy2(EXTENSION / name, build / name)
    shutil.copytree(EXTENSION / "src", build / "src")
    if fresh:
        _run(["npm", "ci", "--no-audit", "--no-fund"], build, 600, "npm ci")
        stamp.write_text(lock_hash)
    _run(["npm", "run", "compile"], build, 300, "npm run compile")
    package = build / f"agent-doc-{version}.vsix"
    package.unlink(missing_ok=True)
    _run(["npx", "--no-install", "@vscode/vsce", "package", "--out", str(package)],
         build, 300, "vsce package")  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(package), out)
    # Keep the newest few builds: worktrees sharing the cache differ in sources.
    builds = sorted(out.parent.parent.iterdir(), key=lambda p: p.stat().st_mtime)
    for stale in builds[:-KEEP_VSIX_BUILDS]:
        shutil.rmtree(stale, ignore_errors=True)
    return out
