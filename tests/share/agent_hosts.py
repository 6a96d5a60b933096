"""Agent hosts for the ``run --room`` tests: each its own HOME, config and clone.

:func:`new_host` makes one (a git clone of the served project, the gated CLI
stand-in and the ACP stand-in configured); a test of two hosts makes two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio

from tests.acp_standin import ACP_AGENT
from tests.cli_runner import agent_doc
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

GATED = Path(__file__).parent.parent / "data" / "gated_agent.py"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@dataclass
class AgentHost:
    """The agent's machine: its own HOME, config and clone of the project."""

    checkout: Path
    env: dict[str, str]
    token_file: Path
    calls: Path
    """The stand-ins' call logs (the CLI agent's, then the ACP agent's)."""
    acp_calls: Path
    gate: Path
    acp_settings: Path

    def acp(self, **behaviour: str) -> None:
        """Set the ACP stand-in's behaviour for the next turn."""
        self.acp_settings.write_text(
            json.dumps({"ACP_AGENT_LOG": str(self.acp_calls), **behaviour})
        )

    def run(
        self, room: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """Start ``agent-doc run pair.md --room ROOM`` on this host."""
        return subprocess.Popen(
            [
                *(sys.executable, "-m", "agent_doc.cli.entry", "run", "pair.md"),
                *("--room", room, "--token-file", str(self.token_file), *args),
            ],
            cwd=self.checkout,
            env={**os.environ, **self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def write(
        self, room: str, answer: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``agent-doc write pair.md --room ROOM`` with ``answer`` on stdin."""
        return agent_doc(
            *("write", "pair.md", "--room", room),
            *("--token-file", str(self.token_file), *args),
            cwd=self.checkout,
            stdin=answer,
            env={**self.env, **(env or {})},
        )

    def prompts(self) -> list[str]:
        """The prompts the gated CLI stand-in received, in order."""
        lines = self.calls.read_text().splitlines()
        return [json.loads(line)["prompt"] for line in lines]

    def argvs(self) -> list[list[str]]:
        """The gated CLI stand-in's argument lists, in order."""
        lines = self.calls.read_text().splitlines()
        return [json.loads(line)["argv"] for line in lines]


def new_host(
    tmp_path: Path, project: Path, served: ServeProcess, name: str = "agent-host"
) -> AgentHost:
    """A new agent host ``name`` under ``tmp_path`` cloning ``project``."""
    home = tmp_path / name
    checkout = home / "checkout"
    home.mkdir()
    git(home, "clone", "-q", str(project), str(checkout))
    git(checkout, "config", "user.email", "agent@example.invalid")
    git(checkout, "config", "user.name", "Agent")
    (home / "run").mkdir(mode=0o700)
    config = home / ".config" / "agent-doc" / "config.toml"
    config.parent.mkdir(parents=True)
    settings = home / "acp-settings.json"
    config.write_text(
        "[agents.gated]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{GATED}", "-p", "--output-format", "json"]\n'
        "[agents.standin]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{ACP_AGENT}", "{settings}"]\n'
        'transport = "acp"\n'
    )
    token_file = home / "token"
    token_file.write_text(token_of(served.root) + "\n")
    token_file.chmod(0o600)
    calls = home / "cli-calls.jsonl"
    calls.write_text("")
    acp_calls = home / "acp-calls.jsonl"
    acp_calls.write_text("")
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "GATED_AGENT_LOG": str(calls),
        "GATED_AGENT_GATE": str(home / "gate"),
        "GATED_AGENT_REPLY": "### Re: product\n\nIt is 42.",
    }
    agent_host = AgentHost(
        checkout, env, token_file, calls, acp_calls, home / "gate", settings
    )
    agent_host.acp()
    return agent_host


async def finished(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Wait (bounded) for ``proc``; its exit code and stderr."""
    _out, err = await anyio.to_thread.run_sync(lambda: proc.communicate(timeout=60))
    return proc.returncode, err
