"""A real VS Code (code-server 4.100.3 + Debian's Chromium) running a test
module inside its extension host.

:meth:`VSCode.run` installs the packaged ``.vsix`` into a fresh extensions
folder, starts code-server on 127.0.0.1 with its own HOME, XDG folders and
TMPDIR, opens the workbench in headless Chromium (driven by pip's playwright,
no browser download) with ``extensionTestsPath`` = the test module, serves the
module's *probes* (DOM reads, clicks, typing, screenshots: see
:mod:`tests.editors.vscode_probes`) and returns the JSON result the module
writes. Every process it started is killed on the way out, even on failure.
See tests/editors/README.md for how to add a test.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tests.editors.vscode_probes import ProbeHandler
from tests.editors.vscode_probes import Probes

E2E = Path(__file__).resolve().parent / "vscode_e2e"
"""The test-runner extension (``extensionDevelopmentPath``) and test modules."""

BASE_SETTINGS: dict[str, Any] = {
    "files.autoSave": "off",
    "security.workspace.trust.enabled": False,
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "telemetry.telemetryLevel": "off",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "git.openRepositoryInParentFolders": "always",
}


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def kill_marked(marker: str) -> None:
    """SIGKILL every process whose environment carries ``marker``."""
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue


class VSCode:
    """One code-server + Chromium run per :meth:`run`, in ``workdir``."""

    def __init__(self, code_server: Path, vsix: Path, workdir: Path) -> None:
        self.code_server = code_server
        self.vsix = vsix
        self.workdir = workdir

    def _env(self, extra: dict[str, str], marker: str) -> dict[str, str]:
        """The isolated environment of code-server and everything it starts.

        The runtime and temp folders are short ones of their own: Chromium's
        singleton socket and code-server's IPC sockets live there, and a
        pytest-xdist temp path is longer than AF_UNIX's 107 bytes allow.
        """
        home = self.workdir / "home"
        short = Path(tempfile.mkdtemp(prefix="adv-"))
        atexit.register(shutil.rmtree, short, ignore_errors=True)
        dirs = {
            "HOME": home,
            "XDG_CONFIG_HOME": home / ".config",
            "XDG_CACHE_HOME": home / ".cache",
            "XDG_DATA_HOME": home / ".local" / "share",
            "XDG_RUNTIME_DIR": short / "run",
            "TMPDIR": short / "tmp",
        }
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = {k: v for k, v in os.environ.items() if not k.startswith("VSCODE_")}
        env.update({k: str(v) for k, v in dirs.items()})
        env.update({"AGENT_DOC_NO_UPDATE_CHECK": "1", "AGENT_DOC_E2E_RUN": marker})
        env.pop("TMUX", None)
        env.update(extra)
        return env

    def _install_vsix(self, env: dict[str, str], extensions: Path, data: Path) -> None:
        """``code-server --install-extension`` the ``.vsix`` into ``extensions``."""
        proc = subprocess.run(
            [str(self.code_server), "--extensions-dir", str(extensions),
             "--user-data-dir", str(data), "--install-extension", str(self.vsix)],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if proc.returncode != 0 or "was successfully installed" not in proc.stdout:
            raise RuntimeError(
                f"installing the vsix failed:\n{proc.stdout}\n{proc.stderr}"
            )

    def _start_server(self, env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
        """Start code-server (own process group) and wait for ``/healthz``."""
        config = self.workdir / "code-server.yaml"
        config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
        args = [
            str(self.code_server), "--config", str(config),
            "--bind-addr", f"127.0.0.1:{port}", "--auth", "none",
            "--disable-telemetry", "--disable-update-check",
            "--disable-workspace-trust", "--disable-getting-started-override",
            "--user-data-dir", str(self.workdir / "data"),
            "--extensions-dir", str(self.workdir / "extensions"),
        ]  # fmt: skip
        with (self.workdir / "code-server.log").open("wb") as log:
            proc = subprocess.Popen(
                args, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"code-server exited: {self.log_tail()}")
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/healthz", timeout=2
                ):
                    return proc
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(
            f"code-server did not answer /healthz in 30 s: {self.log_tail()}"
        )

    def log_tail(self, chars: int = 3000) -> str:
        """The end of code-server's log."""
        path = self.workdir / "code-server.log"
        return path.read_text("utf-8", "replace")[-chars:] if path.exists() else ""

    def run(
        self,
        module: str,
        workspace: Path,
        params: dict[str, Any],
        *,
        settings: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        handlers: dict[str, ProbeHandler] | None = None,
        timeout: float = 240,
    ) -> dict[str, Any]:
        """Run ``vscode_e2e/<module>`` in the extension host; return its result."""
        if not (E2E / module).is_file():
            raise FileNotFoundError(f"no test module {E2E / module}")
        self.workdir.mkdir(parents=True, exist_ok=True)
        marker = uuid.uuid4().hex
        probe_dir = self.workdir / "probes"
        probe_dir.mkdir(exist_ok=True)
        result = self.workdir / "result.json"
        result.unlink(missing_ok=True)
        full_params = {
            **params,
            "resultPath": str(result),
            "probeDir": str(probe_dir),
            "logPath": str(self.workdir / "e2e.log"),
            "extensionsDir": str(self.workdir / "extensions"),
        }
        (self.workdir / "params.json").write_text(json.dumps(full_params))
        extra = {
            **(env or {}),
            "AGENT_DOC_E2E_PARAMS": str(self.workdir / "params.json"),
        }
        run_env = self._env(extra, marker)
        user = self.workdir / "data" / "User"
        user.mkdir(parents=True, exist_ok=True)
        (user / "settings.json").write_text(
            json.dumps({**BASE_SETTINGS, **(settings or {})})
        )
        self._install_vsix(run_env, self.workdir / "extensions", self.workdir / "data")
        port = free_port()
        server: subprocess.Popen[bytes] | None = None
        probes: Probes | None = None
        try:
            server = self._start_server(run_env, port)
            probes = Probes(probe_dir, run_env, handlers or {})
            probes.open(self._url(port, workspace, module))
            probes.serve_until(
                result, timeout, lambda: server is not None and server.poll() is None
            )
            data: dict[str, Any] = json.loads(result.read_text("utf-8"))
            return data
        except Exception as exc:
            raise RuntimeError(
                f"{exc}\n--- code-server log:\n{self.log_tail()}"
            ) from exc
        finally:
            if probes is not None:
                probes.close()
            if server is not None:
                _stop_group(server)
            kill_marked(marker)

    @staticmethod
    def _url(port: int, workspace: Path, module: str) -> str:
        """The workbench URL that runs ``module`` with the runner extension."""
        remote = f"vscode-remote://127.0.0.1:{port}"
        payload = [
            ["extensionDevelopmentPath", f"{remote}{E2E}"],
            ["extensionTestsPath", f"{remote}{E2E / module}"],
        ]
        query = urllib.parse.urlencode(
            {"folder": str(workspace), "payload": json.dumps(payload)}
        )
        return f"http://127.0.0.1:{port}/?{query}"


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM code-server's process group; SIGKILL it after 5 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=5)
