"""Yjs for Node (``yjs``, ``y-websocket``, ``@y/websocket-server``, ``ws``) from npm, cached.

The shared-room tests and ``bench/bench_share.py`` run a y-websocket client and
y-websocket's own server with node. :func:`ensure_yjs` installs the pinned
versions (:data:`PACKAGES`) once into ``~/.cache/agent-doc-tests/yjs-<key>``
(``AGENT_DOC_TEST_CACHE`` moves the cache), from the npm registry alone and
without install scripts; a second call with the cache in place does nothing.
No package file is kept in the repository: the only JS is our
``yjs_node.cjs``, run with ``NODE_PATH`` pointing at the cached
``node_modules`` (:func:`node_command`).

``@y/websocket-server`` 0.1.1 is the y-websocket server for yjs 13 (y-websocket
2 and later ship only the client; ``@y/websocket-server`` 0.1.5 needs a yjs 14
pre-release).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.editors.vscode_install import registry_unreachable

PACKAGES = {
    "yjs": "13.6.33",
    "y-websocket": "3.1.0",
    "@y/websocket-server": "0.1.1",
    "ws": "8.18.3",
}
"""The npm packages and their pinned versions."""
SCRIPT = Path(__file__).resolve().parent / "yjs_node.cjs"
"""Our client / server script (``node yjs_node.cjs client|server …``)."""


class NotInstallable(Exception):
    """Node's Yjs cannot be installed here (the message says why)."""


def cache_dir() -> Path:
    """``$AGENT_DOC_TEST_CACHE`` or ``~/.cache/agent-doc-tests``."""
    explicit = os.environ.get("AGENT_DOC_TEST_CACHE")
    return Path(explicit) if explicit else Path.home() / ".cache" / "agent-doc-tests"


def install_dir() -> Path:
    """Where the pinned set is installed (keyed by the versions)."""
    key = hashlib.sha256(json.dumps(PACKAGES, sort_keys=True).encode()).hexdigest()
    return cache_dir() / f"yjs-{key[:12]}"


def ensure_yjs() -> Path:
    """The ``node_modules`` folder of the pinned set, installed once.

    Raises :class:`NotInstallable` when node/npm are missing or the registry
    cannot be reached, ``RuntimeError`` when the install itself fails.
    """
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise NotInstallable(f"{tool} is not installed (Debian package {tool}js)")
    dest = install_dir()
    modules = dest / "node_modules"
    if (dest / ".complete").exists():
        return modules
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (dest.parent / ".yjs-install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install at a time per cache
        if (dest / ".complete").exists():
            return modules
        reason = registry_unreachable()
        if reason:
            raise NotInstallable(reason)
        work = Path(tempfile.mkdtemp(prefix=".yjs-install-", dir=dest.parent))
        try:
            (work / "package.json").write_text(
                json.dumps(
                    {"name": "agent-doc-yjs", "private": True, "dependencies": PACKAGES}
                )
            )
            env = {
                **os.environ,
                "npm_config_cache": str(dest.parent / "npm-cache"),
                "npm_config_update_notifier": "false",
            }
            proc = subprocess.run(
                ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund",
                 "--loglevel=error"],
                cwd=work, env=env, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            if proc.returncode != 0:
                reason = registry_unreachable()
                if reason:
                    raise NotInstallable(reason)
                raise RuntimeError(f"npm install failed:\n{proc.stderr[-3000:]}")
            shutil.rmtree(dest, ignore_errors=True)
            work.rename(dest)
            (dest / ".complete").touch()
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return modules


def node_command(modules: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """``node yjs_node.cjs ARGS`` and its environment (``NODE_PATH`` = ``modules``)."""
    env = {**os.environ, "NODE_PATH": str(modules)}
    return ["node", str(SCRIPT), *args], env


class NodeProcess:
    """``node yjs_node.cjs …`` with its JSON-line events read on a thread."""

    def __init__(
        self, modules: Path, *args: str, env: dict[str, str] | None = None
    ) -> None:
        command, base = node_command(modules, *args)
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, **(env or {})},
        )
        self.events: list[dict[str, Any]] = []
        self._errors: list[str] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            event = json.loads(line)
            self.events.append(event)
            self._queue.put(event)
        self._queue.put(None)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._errors.append(line)

    def wait_event(
        self, check: Callable[[dict[str, Any]], bool], timeout: float = 15
    ) -> dict[str, Any]:
        """The first (new) event passing ``check``; fail after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no such event within {timeout} s: {self.events}")
            try:
                event = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if event is None:
                raise AssertionError(
                    f"node exited ({self.proc.wait()}): {self.stderr()}; {self.events}"
                )
            if check(event):
                return event

    def send(self, command: dict[str, Any]) -> None:
        """Write one JSON command line to the script's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def stderr(self) -> str:
        """The end of what node wrote to stderr so far."""
        return "".join(self._errors)[-3000:]

    def stop(self) -> None:
        """Close stdin (the script exits), then kill it if it lingers."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
