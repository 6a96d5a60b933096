"""The real agent CLIs for tests, pinned, installed from npm into a cache.

* ``@anthropic-ai/claude-code`` (``claude``), ``@zed-industries/claude-agent-acp``
  (``claude-agent-acp``) and ``@openai/codex`` (``codex``) at the versions in
  :data:`PACKAGES`, each by ``npm install`` into
  ``~/.cache/agent-doc-agents/<name>-<version>`` (``AGENT_DOC_AGENTS_CACHE``
  moves the cache); a file lock makes parallel pytest-xdist workers install
  once, a ``.complete`` stamp makes later runs free.
* :func:`agent_env` is the environment that points a real CLI at a
  :class:`tests.model_server.ModelServer` instead of the model's real API: a
  private ``HOME`` (claude keeps its sessions under ``~/.claude``, codex its
  config under ``~/.codex``), a dummy key, no nonessential traffic, one retry.

Only npm and node are needed (no apt package beyond ``nodejs``/``npm``). A test
skips, with the reason, only when the registry cannot be reached.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.editors.vscode_install import registry_unreachable


@dataclass(frozen=True, slots=True)
class Package:
    """One pinned npm package and the binary it provides."""

    name: str
    version: str
    binary: str


CLAUDE = Package("@anthropic-ai/claude-code", "2.1.328", "claude")
CLAUDE_ACP = Package("@zed-industries/claude-agent-acp", "0.23.1", "claude-agent-acp")
CODEX = Package("@openai/codex", "0.169.0", "codex")
PACKAGES = (CLAUDE, CLAUDE_ACP, CODEX)


def cache_dir() -> Path:
    """The install cache (``AGENT_DOC_AGENTS_CACHE`` or ``~/.cache/agent-doc-agents``)."""
    explicit = os.environ.get("AGENT_DOC_AGENTS_CACHE")
    if explicit:
        return Path(explicit)
    return Path.home() / ".cache" / "agent-doc-agents"


def _folder(package: Package) -> Path:
    slug = package.name.strip("@").replace("/", "-")
    return cache_dir() / f"{slug}-{package.version}"


def _install(package: Package, dest: Path) -> None:
    """``npm install`` the package into ``dest`` (skips when npm is unreachable)."""
    work = dest.with_name(dest.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {
        **os.environ,
        "npm_config_cache": str(cache_dir() / "npm-cache"),
        "npm_config_update_notifier": "false",
    }
    spec = f"{package.name}@{package.version}"
    try:
        proc = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
             "--prefix", str(work), spec],
            capture_output=True, text=True, timeout=600, env=env, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        proc = None
    if proc is None or proc.returncode != 0:
        reason = registry_unreachable()
        if reason:
            pytest.skip(f"cannot install {spec}: {reason}")
        tail = "timed out" if proc is None else proc.stderr[-2000:]
        raise RuntimeError(f"npm install {spec} failed: {tail}")
    shutil.rmtree(dest, ignore_errors=True)
    work.rename(dest)
    (dest / ".complete").touch()


def ensure(package: Package) -> Path:
    """The path of ``package``'s binary, installed once into the cache."""
    dest = _folder(package)
    binary = dest / "node_modules" / ".bin" / package.binary
    if (dest / ".complete").exists():
        return binary
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node/npm are not installed (Debian packages nodejs, npm)")
    cache_dir().mkdir(parents=True, exist_ok=True)
    with (cache_dir() / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install at a time per cache
        if not (dest / ".complete").exists():
            _install(package, dest)
    return binary


def agent_env(home: Path, base_url: str) -> dict[str, str]:
    """Environment for a real agent CLI talking to a scripted model at ``base_url``."""
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-test-scripted",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_MAX_RETRIES="1",
        STUB_API_KEY="sk-test-scripted",
    )
    if os.geteuid() == 0:  # the ACP adapter refuses session/new as root otherwise
        env["IS_SANDBOX"] = "1"
    for name in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "ANTHROPIC_AUTH_TOKEN"):
        env.pop(name, None)
    return env


def codex_config(home: Path, base_url: str, model: str = "gpt-5") -> None:
    """Write ``~/.codex/config.toml`` pointing codex at the scripted Responses API.

    No retries: a scripted fault reaches ``codex exec`` at once.
    """
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f'model = "{model}"\nmodel_provider = "stub"\n\n'
        "[model_providers.stub]\n"
        f'name = "stub"\nbase_url = "{base_url}/v1"\n'
        'wire_api = "responses"\nenv_key = "STUB_API_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n",
        encoding="utf-8",
    )
