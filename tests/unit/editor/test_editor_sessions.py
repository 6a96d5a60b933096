"""agent_doc.editor.sessions: rows of agentDoc.sessions without a live editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.editor.sessions import SessionScanner
from agent_doc.store.state import StateStore

DOC = "---\nagent_doc_session: {sid}\n---\n<!-- agent:exchange -->\nq\n<!-- /agent:exchange -->\n"


def test_rows_without_tmux_say_why_and_keep_the_other_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True)
    doc = root / "a.md"
    doc.write_text(DOC.format(sid="11111111-1111-4111-8111-111111111111"))
    (root / "plain.md").write_text("# not a session\n")
    StateStore.for_document(doc).save_snapshot(doc, doc.read_text() + "gone\n")
    (root / ".agent-doc" / "sessions.json").write_text(
        '{"11111111-1111-4111-8111-111111111111": {"pane": "%9", "file": "a.md"}}'
    )
    monkeypatch.setenv("AGENT_DOC_TMUX_SOCKET", f"no-such-{tmp_path.name}")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no tmux binary
    (row,) = SessionScanner().scan([root], {}, {})
    data = row.payload()
    assert data["name"] == "a.md"
    assert (data["state"], data["pane"]) == ("none", None)
    assert data["detail"] == "tmux: tmux is not installed"
    assert (data["unsent"], data["unsentChanges"]) == (True, 1)
    assert data["open"] is False
    assert data["lastAnswer"] is None
