"""Ctrl+Z / Ctrl+Shift+Z in a real VS Code on a shared document (issue 29).

The installed ``.vsix`` in code-server (tests/editors/README.md), its
document (a checkout of its own) joined to a room on a real ``agent-doc
serve`` through the ``agentDoc.sync`` setting; real key events in Chromium;
the agent's answer from ``agent-doc write --room`` in a folder that shares no
files with VS Code (``vscode_e2e/share_undo.js``). Ctrl+Z with the cursor away
from the person's words removes those words only — VS Code's own undo would
remove the answer, the buffer's last change — puts the cursor where they
were, and the room's file follows; Ctrl+Shift+Z brings them back.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest

from tests.editors.vscode_fixtures import make_project
from tests.editors.vscode_harness import VSCode
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(900)]

CHECKS = [
    "typing_and_answer_reach_everyone",
    "ctrl_z_undoes_only_the_persons_text",
    "ctrl_shift_z_redoes_it",
]
ANSWER = "<!-- patch:exchange -->\nIt is 42.\n<!-- /patch:exchange -->\n"


def test_ctrl_z_in_a_shared_document_undoes_only_the_persons_text(
    vscode: Callable[[str], VSCode], tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.mktemp("vscode-share-undo")
    served_root = base / "served"
    (served_root / ".agent-doc").mkdir(parents=True)
    (served_root / "pair.md").write_text(DOC, "utf-8")
    server = ServeProcess(served_root).start()
    try:
        token = base / "token"
        token.write_text(token_of(served_root) + "\n", "utf-8")
        token.chmod(0o600)
        agent_host = base / "agent-host"
        agent_host.mkdir()
        shutil.copy(served_root / "pair.md", agent_host / "pair.md")
        with make_project(base) as project:
            project.doc.write_text(DOC, "utf-8")  # VS Code's own checkout
            result = vscode("share-undo").run(
                "share_undo.js",
                project.root,
                {
                    **project.params(),
                    "servedDoc": str(served_root / "pair.md"),
                    "room": server.url,
                    "tokenFile": str(token),
                    "agentHost": str(agent_host),
                    "promptLine": "What is 6 x 7?",
                    "mine": " and show the steps",
                    "answer": ANSWER,
                    "answerMark": "It is 42.",
                },
                settings={
                    **project.settings(),
                    "agentDoc.autoSync": False,
                    "agentDoc.sync": server.url,
                    "agentDoc.syncTokenFile": str(token),
                },
                env=project.env(),
            )
    finally:
        server.kill()
    checks = result["checks"]
    assert "_aborted" not in checks, checks.get("_aborted")
    for name in CHECKS:
        assert checks[name]["ok"], f"{name}: {checks[name]['detail']}"
    assert (agent_host / "pair.md").read_text("utf-8") == DOC  # nothing shared
