"""The installed agent-doc ``.vsix`` in a real VS Code (code-server 4.100.3).

One extension-host run (``vscode_e2e/all_features.js``) performs every check
against the editor's own state (API objects and what the workbench shows);
each check is reported here as its own test. Setup: a git project with two
session documents, a private tmux server whose pane runs the stand-in agent
(``TMUX_PANE`` points at it, as when VS Code is started from tmux), the server
started through a wrapper that logs each start; for the ACP checks
(``vscode_e2e/features_acp.js``) a third kind of document, ``acp.md``, whose
agent is the stand-in ACP agent (``tests/acp_standin.py``) configured in the
run's own ``XDG_CONFIG_HOME``. See tests/editors/README.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import pytest

from tests.editors.vscode_fixtures import TIMINGS
from tests.editors.vscode_fixtures import acp_params
from tests.editors.vscode_fixtures import make_project
from tests.editors.vscode_harness import VSCode

pytestmark = [pytest.mark.editor, pytest.mark.timeout(900)]

CHECKS = [
    "vsix_is_the_installed_extension",
    "activates_on_session_document",
    "server_starts_from_setting",
    "document_symbols",
    "folding_ranges",
    "code_lenses",
    "claim_pane_command",
    "status_bar_shows_agent_state",
    "lens_row_shows_agent_pane",
    "run_command_reaches_agent",
    "code_lens_command_runs",
    "keybinding_runs_submit",
    "write_lands_in_unsaved_buffer",
    "permission_prompt_answered_from_notification",
    "commit_command_and_vcs_refresh",
    "sync_layout_command",
    "auto_sync_on_visible_editors",
    "settings_reach_server",
    "restart_language_server",
    "acp_answer_streams_while_typing_one_undo",
    "acp_answer_streams_while_typing_fast",
    "acp_ask_and_stop_commands",
    "acp_permission_question_in_notification",
]


@pytest.fixture(scope="module")
def features(
    vscode: Callable[[str], VSCode], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """The checks of one ``all_features.js`` run: name → {ok, detail, ms}."""
    base = tmp_path_factory.mktemp("vscode-features")
    with make_project(base) as project:
        editor = vscode("features")
        started = time.monotonic()
        result = editor.run(
            "all_features.js",
            project.root,
            {**project.params(), **acp_params(project, editor.workdir)},
            settings={
                **project.settings(),
                "agentDoc.autoSync": False,
                "git.autorefresh": False,
            },
            env=project.env(),
        )
        TIMINGS["run: all_features.js"] = time.monotonic() - started
        yield result["checks"]


def test_run_was_not_aborted(features: dict[str, Any]) -> None:
    assert "_aborted" not in features, features.get("_aborted")
    assert sorted(features) == sorted(CHECKS)


@pytest.mark.parametrize("check", CHECKS)
def test_feature(features: dict[str, Any], check: str) -> None:
    result = features.get(check)
    assert result is not None, f"{check} did not run"
    assert result["ok"], result["detail"]
