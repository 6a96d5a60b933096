"""Smoke test: the real Claude ACP adapter initializes with our client.

The pinned ``@zed-industries/claude-agent-acp`` comes from the npm cache of
:mod:`tests.real_agents` (or ``AGENT_DOC_CLAUDE_CODE_ACP``, a path to its
binary). Only ``initialize`` is sent: no session, no prompt, no model call
(the turns against a scripted model are in ``tests/agents/test_claude_acp.py``).
Skipped, with the reason, when npm cannot be reached.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.cycle.acp_run import ConsoleHost
from agent_doc.store.config import AgentCommand
from tests import real_agents

pytestmark = pytest.mark.slow

PACKAGE = real_agents.CLAUDE_ACP.name


def adapter() -> Path:
    """The adapter's binary (given, or installed once into the cache)."""
    given = os.environ.get("AGENT_DOC_CLAUDE_CODE_ACP")
    if given:
        return Path(given)
    return real_agents.ensure(real_agents.CLAUDE_ACP)


def test_claude_code_acp_initializes(tmp_path: Path) -> None:
    binary = adapter()
    agent = AgentCommand(command=str(binary), transport="acp", permissions="reject")
    turn = AcpTurn(
        "claude-acp", agent, ConsoleHost("claude-acp", agent, tmp_path, None), tmp_path
    )
    info = asyncio.run(turn.probe(timeout=60))
    assert info["protocol_version"] >= 1
    assert info["name"] == PACKAGE
    assert info["load_session"] is True  # resume works through session/load
