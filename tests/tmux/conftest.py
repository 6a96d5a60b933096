"""Fixtures for tests against a real tmux server on a private socket."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.tmux.adapter import Tmux
from tests.private_tmux import AGENT_COMMAND
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

pytestmark = pytest.mark.tmux


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    """A private tmux server (``-L agentdoc-test-<uuid>``) with session ``main``."""
    with private_server(monkeypatch, "agentdoc-test") as name:
        yield Tmux(name)


def wait_text(tmux: Tmux, pane: str, text: str, timeout: float = 10.0) -> str:
    """Wait until ``text`` shows in ``pane``; return the capture."""
    seen = [""]

    def check() -> bool:
        seen[0] = tmux.capture(pane)
        return text in seen[0]

    try:
        wait_for(check, timeout, f"{text!r} in pane {pane}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; pane shows:\n{seen[0]}") from None
    return seen[0]


def spawn_agent(tmux: Tmux, session: str = "main", env: str = "") -> str:
    """Start the fake agent in a new window of ``session``; wait for its prompt."""
    pane = tmux.run(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        f"={session}:",
        f"{env} exec {AGENT_COMMAND}".strip(),
    )[0]
    wait_text(tmux, pane, "❯")
    return pane


def make_doc(root: Path, name: str, session: str | None = None, body: str = "") -> Path:
    """Write a document (with a session UUID unless ``session`` is empty)."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if session is None:
        session = str(uuid.uuid4())
    front = f"---\nagent_doc_session: {session}\n---\n" if session else ""
    path.write_text(front + (body or "# Doc\n"), "utf-8")
    return path
