"""Fixtures for the real agent CLIs against the scripted model.

One :class:`~tests.model_server.ModelServer` per worker (each test sets its own
script, which also clears the request log); the pinned CLIs from the npm cache
(:mod:`tests.real_agents`); an environment with a private ``HOME`` per test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import real_agents
from tests.model_server import ModelServer


@pytest.fixture(scope="session")
def model() -> Iterator[ModelServer]:
    """The scripted model, shared by the tests of one worker."""
    server = ModelServer().start()
    yield server
    server.stop()


def _env_with(binary: Path, home: Path, model: ModelServer) -> dict[str, str]:
    env = real_agents.agent_env(home, model.url)
    env["PATH"] = f"{binary.parent}{os.pathsep}{env['PATH']}"
    return env


@pytest.fixture
def claude_env(tmp_path: Path, model: ModelServer) -> dict[str, str]:
    """The environment of a test running the real ``claude`` (on PATH)."""
    return _env_with(
        real_agents.ensure(real_agents.CLAUDE), tmp_path / "agent-home", model
    )


@pytest.fixture
def claude_acp(tmp_path: Path, model: ModelServer) -> tuple[Path, dict[str, str]]:
    """The real ``claude-agent-acp`` binary and its environment."""
    binary = real_agents.ensure(real_agents.CLAUDE_ACP)
    return binary, _env_with(binary, tmp_path / "agent-home", model)


@pytest.fixture
def codex_env(tmp_path: Path, model: ModelServer) -> dict[str, str]:
    """The environment of a test running the real ``codex`` (on PATH)."""
    home = tmp_path / "agent-home"
    env = _env_with(real_agents.ensure(real_agents.CODEX), home, model)
    real_agents.codex_config(home, model.url)
    return env
