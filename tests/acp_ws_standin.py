"""The stand-in ACP agent behind the ACP SDK's WebSocket server, for the tests.

:func:`start_agent_server` runs ``tests/data/acp_ws_server.py`` (the SDK's ASGI
app under uvicorn on 127.0.0.1, a real process) requiring :data:`TOKEN`;
:func:`configure_ws` points ``[agents.standin]`` at it (``transport = "acp-ws"``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from agent_doc.store.config import global_config_path

SERVER = Path(__file__).parent / "data" / "acp_ws_server.py"
TOKEN = "s3cret-token-for-the-agent"


class AgentServer:
    """A running stand-in ACP agent behind the SDK's WebSocket server."""

    def __init__(self, proc: subprocess.Popen[str], port: int, log: Path) -> None:
        self.proc = proc
        self.port = port
        self.log = log

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/acp"

    def calls(self) -> list[dict[str, object]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self) -> str:
        """Stop the server (idempotent); return what it logged on stderr."""
        if self.proc.returncode is not None:
            return ""
        self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=5)
        return err


def start_agent_server(tmp_path: Path) -> AgentServer:
    """Start the stand-in behind the SDK's WebSocket server (token :data:`TOKEN`)."""
    log = tmp_path / "acp-log.jsonl"
    settings = tmp_path / "agent-settings.json"
    settings.write_text(
        json.dumps({"ACP_AGENT_LOG": str(log), "ACP_AGENT_LOG_CHUNKS": "1"})
    )
    env = {**os.environ, "ACP_WS_TOKEN": TOKEN}
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(settings)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    return AgentServer(proc, int(proc.stdout.readline()), log)


def configure_ws(url: str, token_file: Path | None, extra: str = "") -> None:
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    token = f'token_file = "{token_file}"\n' if token_file else ""
    config.write_text(
        f'[agents.standin]\ntransport = "acp-ws"\nurl = "{url}"\n{token}{extra}'
    )


def token_file(tmp_path: Path, token: str) -> Path:
    path = tmp_path / "agent-token"
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path
