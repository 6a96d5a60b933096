"""Smoke test: the real Claude Code ACP adapter initializes with our client.

``@zed-industries/claude-code-acp`` is installed from npm into a temp folder
(or taken from ``AGENT_DOC_CLAUDE_CODE_ACP``, a path to its binary). Only
``initialize`` is sent: no session, no prompt, no call to Anthropic. Skipped,
with the reason, when npm is missing or the registry cannot be reached.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.acp_run import ConsoleHost
from agent_doc.store.config import AgentCommand

pytestmark = pytest.mark.slow

PACKAGE = "@zed-industries/claude-code-acp"


def adapter(tmp_path: Path) -> Path:
    given = os.environ.get("AGENT_DOC_CLAUDE_CODE_ACP")
    if given:
        return Path(given)
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    try:
        proc = subprocess.run(
            [
                npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(tmp_path),
                PACKAGE,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {PACKAGE} timed out (registry unreachable?)")
    binary = tmp_path / "node_modules" / ".bin" / "claude-code-acp"
    if proc.returncode != 0 or not binary.exists():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm install {PACKAGE} failed (registry unreachable?): {last}")
    return binary


def test_claude_code_acp_initializes(tmp_path: Path) -> None:
    binary = adapter(tmp_path / "npm")
    agent = AgentCommand(command=str(binary), transport="acp", permissions="reject")
    turn = AcpTurn(
        "claude-acp", agent, ConsoleHost("claude-acp", agent, tmp_path, None), tmp_path
    )
    info = asyncio.run(turn.probe(timeout=60))
    assert info["protocol_version"] >= 1
    assert info["name"] == PACKAGE
    assert info["load_session"] is True  # resume works through session/load
