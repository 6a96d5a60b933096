"""pytest fixtures of the real-VS-Code tests (imported by tests/editors/conftest.py).

``vscode`` (session): code-server and the ``.vsix`` installed (cached), as a
factory of :class:`~tests.editors.vscode_harness.VSCode` runs; skips with the
reason only when the registries cannot be reached. ``vscode_project``
(function-free helper :func:`make_project`): a git project with session
documents, a private tmux server whose pane runs the stand-in agent.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.editors.harness import session_doc
from tests.editors.vscode_harness import VSCode
from tests.editors.vscode_install import NotInstallable
from tests.editors.vscode_install import ensure_code_server
from tests.editors.vscode_install import ensure_vsix
from tests.private_tmux import AGENT_COMMAND
from tests.private_tmux import wait_for

TIMINGS: dict[str, float] = {}
"""Seconds spent per phase (``install``, ``run:<module>``), printed at the end."""

VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def vscode(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], VSCode]:
    """A factory of real-VS-Code runs, each in its own new folder."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("pip's playwright is not installed (pip install -e '.[test]')")
    started = time.monotonic()
    try:
        code_server = ensure_code_server()
        vsix = ensure_vsix()
    except NotInstallable as exc:
        pytest.skip(f"real VS Code cannot be installed here: {exc}")
    TIMINGS["install (code-server + vsix)"] = time.monotonic() - started

    def make(name: str) -> VSCode:
        return VSCode(code_server, vsix, tmp_path_factory.mktemp(f"vscode-{name}"))

    return make


@dataclass
class Project:
    """A git project with session documents and an agent in private tmux."""

    root: Path
    doc: Path
    right: Path
    tmux_socket: str
    agent_pane: str
    server_log: Path
    server_command: Path
    third: Path

    def server_args(self) -> list[str]:
        """``agentDoc.server.args`` of the tests: the server logs to a file."""
        return [
            "--log-file",
            str(self.root.parent / "agent-doc-lsp.log"),
            "--log-level",
            "info",
        ]

    def settings(self) -> dict[str, object]:
        """User settings: the logging wrapper as the server, fast status polls."""
        return {
            "agentDoc.server.command": str(self.server_command),
            "agentDoc.server.args": self.server_args(),
            "agentDoc.statusIntervalMs": 200,
        }

    def env(self) -> dict[str, str]:
        """Environment of code-server (and so of the extension host and server)."""
        ceiling = str(self.root.parent)
        return {
            "AGENT_DOC_TMUX_SOCKET": self.tmux_socket,
            "AGENT_DOC_AGENT_COMMAND": AGENT_COMMAND,
            "TMUX_PANE": self.agent_pane,
            "SHELL": "/bin/sh",
            "AGENT_DOC_CEILING_DIRS": ceiling,
            "GIT_CEILING_DIRECTORIES": ceiling,
            "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
        }

    def params(self) -> dict[str, object]:
        """What the test module needs to know (``lib.js`` ``params``)."""
        lines = self.doc.read_text("utf-8").split("\n")
        return {
            "project": str(self.root),
            "doc": str(self.doc),
            "right": str(self.right),
            "tmuxSocket": self.tmux_socket,
            "agentPane": self.agent_pane,
            "agentDoc": str(VENV_BIN / "agent-doc"),
            "serverLog": str(self.server_log),
            "serverCommand": str(self.server_command),
            "serverArgs": self.server_args(),
            "third": str(self.third),
            "exchangeOpenLine": next(
                i
                for i, line in enumerate(lines)
                if line.startswith("<!-- agent:exchange")
            ),
        }


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def acp_params(project: Project, workdir: Path) -> dict[str, object]:
    """An ACP session document ``acp.md`` whose agent is the stand-in ACP agent.

    The agent is configured in the run's own config folder (``workdir``'s
    ``XDG_CONFIG_HOME``, see :class:`~tests.editors.vscode_harness.VSCode`);
    it reads what to do from ``acpSettings`` each time it starts.
    """
    from agent_doc.cycle.acp_run import INTERRUPTED_NOTE
    from tests.acp_standin import ACP_AGENT
    from tests.acp_standin import SESSION_DOC

    doc = project.root / "acp.md"
    doc.write_text(SESSION_DOC, "utf-8")
    settings = project.root.parent / "acp-agent-settings.json"
    settings.write_text("{}")
    config = workdir / "home" / ".config" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[agents.standin]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{ACP_AGENT}", "{settings}"]\n'
        'transport = "acp"\n'
    )
    return {
        "acpDoc": str(doc),
        "acpSettings": str(settings),
        "interruptedNote": INTERRUPTED_NOTE,
    }


@contextmanager
def make_project(base: Path) -> Iterator[Project]:
    """Set up a :class:`Project` under ``base``; kill its tmux server after."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    root = base / "proj"
    (root / ".agent-doc").mkdir(parents=True)
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "t@example.invalid")
    _git(root, "config", "user.name", "Test")
    (root / "README.md").write_text("# project\n")
    _git(root, "add", "README.md")
    _git(root, "commit", "-q", "-m", "start")
    doc = session_doc(root, "doc.md", body="What is 2+2?\n")
    right = session_doc(root, "right.md", body="Another question\n")
    third = session_doc(root, "third.md", body="A third question\n")
    log = base / "server-starts.log"
    wrapper = base / "agent-doc-lsp-logged"
    wrapper.write_text(
        f'#!/bin/sh\necho "$$ started $*" >> {log}\nexec {VENV_BIN / "agent-doc-lsp"} "$@"\n'
    )
    wrapper.chmod(0o755)
    socket = f"agentdoc-vsc-{uuid.uuid4().hex[:12]}"
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "/bin/sh"],
        check=True,
    )
    try:
        subprocess.run(
            [*tmux, "set-option", "-g", "default-shell", "/bin/sh"], check=True
        )
        pane = subprocess.run(
            [*tmux, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
             f"exec {AGENT_COMMAND}"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip

        def prompt_shown() -> bool:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", pane],
                capture_output=True,
                text=True,
            ).stdout
            return "❯" in screen

        wait_for(prompt_shown, 15, "the stand-in agent's prompt")
        yield Project(root, doc, right, socket, pane, log, wrapper, third)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
