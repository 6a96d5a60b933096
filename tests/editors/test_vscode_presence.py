"""Presence in a shared document, in the real VS Code (code-server 4.100.3).

A real ``agent-doc serve`` serves the project; VS Code's settings point
``agentDoc.sync`` at it, so the open session document joins its room. The run
module (``vscode_e2e/presence.js``) starts a second peer, "bob", in its own
process and checks, from the extension's own view: the status bar says
"shared" and counts bob, bob's cursor is drawn where he put it with his name,
VS Code's cursor reaches bob, and after ``kill -9`` bob's cursor and count go
within seconds. Each check is reported here as its own test.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.share.documents import session_id
from tests.editors.vscode_fixtures import TIMINGS
from tests.editors.vscode_fixtures import make_project
from tests.editors.vscode_harness import VSCode
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
"""Where ``python -m tests.share.peer_process`` is found."""
CHECKS = [
    "document_joins_its_room",
    "other_peer_cursor_drawn_with_name",
    "own_cursor_reaches_other_peer",
    "killed_peer_disappears",
]


@pytest.fixture(scope="module")
def presence(
    vscode: Callable[[str], VSCode], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """The checks of one ``presence.js`` run: name → {ok, detail, ms}."""
    base = tmp_path_factory.mktemp("vscode-presence")
    with make_project(base) as project:
        server = ServeProcess(project.root).start()
        try:
            session = session_id(project.doc.read_text("utf-8"))
            assert session is not None
            editor = vscode("presence")
            started = time.monotonic()
            result = editor.run(
                "presence.js",
                project.root,
                {
                    **project.params(),
                    "python": sys.executable,
                    "repo": str(REPO),
                    "room": f"{server.url}/{session}",
                    "token": token_of(project.root),
                },
                settings={
                    **project.settings(),
                    "agentDoc.autoSync": False,
                    "agentDoc.sync": server.url,
                    "agentDoc.syncUserName": "ann",
                    "git.autorefresh": False,
                },
                env=project.env(),
            )
            TIMINGS["run: presence.js"] = time.monotonic() - started
            yield result["checks"]
        finally:
            server.stop()


def test_run_was_not_aborted(presence: dict[str, Any]) -> None:
    assert "_aborted" not in presence, presence.get("_aborted")
    assert sorted(presence) == sorted(CHECKS)


@pytest.mark.parametrize("check", CHECKS)
def test_presence(presence: dict[str, Any], check: str) -> None:
    result = presence.get(check)
    assert result is not None, f"{check} did not run"
    assert result["ok"], result["detail"]
