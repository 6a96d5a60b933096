"""Issue 20 in real VS Code (code-server): hints, Submit count, turn lenses, sessions.

One extension-host run (``vscode_e2e/conversation_state.js``); before it, one
agent turn is written and committed in ``doc.md`` with the real CLI. Each check
is reported as its own test. ``AGENT_DOC_SCREENSHOT=path.png`` saves the
workbench with the Sessions view (docs/editors/vscode-conversation-state.png).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import pytest

from tests.editors.harness import agent_doc
from tests.editors.vscode_fixtures import TIMINGS
from tests.editors.vscode_fixtures import make_project
from tests.editors.vscode_harness import VSCode

pytestmark = [pytest.mark.editor, pytest.mark.timeout(900)]

CHECKS = [
    "unsent_hint_and_submit_count",
    "comment_is_private",
    "sessions_tree_view",
    "diff_this_turn_opens_the_commit_diff",
    "revert_this_turn_is_one_undoable_edit",
]
ANSWER = (
    "<!-- patch:exchange -->\n### Re: the plan\n\nShip it on Friday.\n"
    "<!-- /patch:exchange -->\n"
)


def tree_rows(page: Any, _request: dict[str, Any]) -> dict[str, Any]:
    """Rows of the agent-doc Sessions view as a person reads them."""
    rows: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('.pane')]
             .filter(p => (p.querySelector('.pane-header')?.innerText || '')
                            .toLowerCase().includes('agent-doc sessions'))
             .flatMap(p => [...p.querySelectorAll('.monaco-list-row')])
             .map(e => e.innerText.replace(/\\s+/g, ' '))"""
    )
    headers: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('.pane-header')].map(h => h.innerText)"""
    )
    return {"rows": rows, "headers": headers}


@pytest.fixture(scope="module")
def state(
    vscode: Callable[[str], VSCode], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """The checks of one ``conversation_state.js`` run: name → {ok, detail, ms}."""
    base = tmp_path_factory.mktemp("vscode-conversation-state")
    with make_project(base) as project:
        res = agent_doc("write", "doc.md", cwd=project.root, stdin=ANSWER)
        assert res.returncode == 0, res.stderr
        res = agent_doc("commit", "doc.md", cwd=project.root)
        assert res.returncode == 0, res.stderr
        params = project.params()
        if os.environ.get("AGENT_DOC_SCREENSHOT"):
            params["screenshot"] = os.environ["AGENT_DOC_SCREENSHOT"]
        started = time.monotonic()
        result = vscode("conversation-state").run(
            "conversation_state.js",
            project.root,
            params,
            settings={
                **project.settings(),
                "agentDoc.autoSync": False,
                "git.autorefresh": False,
            },
            env=project.env(),
            handlers={"tree": tree_rows},
        )
        TIMINGS["run: conversation_state.js"] = time.monotonic() - started
        yield result["checks"]


def test_run_was_not_aborted(state: dict[str, Any]) -> None:
    assert "_aborted" not in state, state.get("_aborted")
    assert sorted(state) == sorted(CHECKS)


@pytest.mark.parametrize("check", CHECKS)
def test_check(state: dict[str, Any], check: str) -> None:
    result = state.get(check)
    assert result is not None, f"{check} did not run"
    assert result["ok"], result["detail"]
