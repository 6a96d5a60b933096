"""Pure parts of :mod:`agent_doc.editor.agent_status` (payload, lens titles, prompt keys)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.editor.agent_status import EditorStatus
from agent_doc.editor.agent_status import open_doc
from agent_doc.tmux.prompts import parse_prompt

DIALOG = (
    "Bash command\n\n  rm -rf build\n\nDo you want to proceed?\n"
    "❯ 1. Yes\n  2. No\n\nEsc to cancel\n"
)


@pytest.mark.parametrize(
    ("status", "title"),
    [
        pytest.param(
            EditorStatus("running", "%4", "claude"),
            "● claude — running in %4",
            id="running",
        ),
        pytest.param(
            EditorStatus("needs_input", "%4", "claude", "permission: Proceed?"),
            "◐ claude — needs input in %4 (permission: Proceed?)",
            id="permission",
        ),
        pytest.param(
            EditorStatus("exited", "%4", "claude", "exit code 0", exit_code=0),
            "✓ claude — exited in %4 (exit code 0)",
            id="exited-ok",
        ),
        pytest.param(
            EditorStatus("exited", "%4", "claude", "exit code 2", exit_code=2),
            "✗ claude — exited in %4 (exit code 2)",
            id="exited-error",
        ),
        pytest.param(
            EditorStatus("none", None, "agent", "run agentDoc.claim"),
            "○ no agent pane — run agentDoc.claim",
            id="none",
        ),
    ],
)
def test_lens_title(status: EditorStatus, title: str) -> None:
    assert status.lens_title() == title


def test_payload_has_the_wire_fields() -> None:
    status = EditorStatus("exited", "%1", "claude", "exit code 3", exit_code=3)
    assert status.payload() == {
        "state": "exited",
        "pane": "%1",
        "agent": "claude",
        "detail": "exit code 3",
        "exitCode": 3,
    }


def test_prompt_key_identifies_pane_question_and_options() -> None:
    prompt = parse_prompt(DIALOG)
    status = EditorStatus("needs_input", "%2", "claude", prompt=prompt)
    assert status.prompt_key() == ("%2", "Do you want to proceed?", "Yes", "No")
    assert EditorStatus("running", "%2", "claude").prompt_key() is None


def test_open_doc_reads_session_and_agent_from_the_live_text(tmp_path: Path) -> None:
    text = "---\nagent_doc_session: abc\nagent: codex\n---\n# Doc\n"
    doc = open_doc(tmp_path / "d.md", text)
    assert doc is not None
    assert (doc.key, doc.agent) == ("abc", "codex")
    assert open_doc(tmp_path / "d.md", "# no frontmatter\n") is None
    assert open_doc(tmp_path / "d.md", "---\n: [bad\n---\n") is None
