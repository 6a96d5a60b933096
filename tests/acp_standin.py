"""The stand-in ACP agent of the tests: its session document and its config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_doc.store.config import global_config_path

ACP_AGENT = Path(__file__).parent / "data" / "acp_agent.py"
"""The stand-in agent, written with the SDK's agent side."""

SESSION_DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: standin
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->

Notes:
"""
"""A template session document whose agent is the stand-in."""


def configure_standin(tmp_path: Path, behaviour: dict[str, str]) -> Path:
    """Configure ``[agents.standin]`` (ACP) with ``behaviour``; return its settings file."""
    settings = tmp_path / "agent-settings.json"
    settings.write_text(json.dumps(behaviour))
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[agents.standin]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{ACP_AGENT}", "{settings}"]\n'
        'transport = "acp"\n'
    )
    return settings
