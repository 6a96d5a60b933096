"""The stand-in claude of the CLI tests, configured as the agent ``fake``."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_doc.store.config import global_config_path

FAKE_CLAUDE = Path(__file__).parent / "data" / "fake_claude.py"
"""A stand-in for the claude CLI (same argv and JSON; see its docstring)."""


def configure_fake_claude(name: str = "fake") -> Path:
    """Write ``[agents.NAME]`` running :data:`FAKE_CLAUDE` into the (test's)
    global config; return the config file."""
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"[agents.{name}]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{FAKE_CLAUDE}", "-p", "--output-format", "json"]\n'
    )
    return config
