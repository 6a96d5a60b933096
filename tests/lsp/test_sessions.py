"""agentDoc.sessions: every session document of the workspace, with real tmux."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from agent_doc.store.state import StateStore
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from tests.lsp.tmux_harness import lsp_on_tmux  # noqa: F401
from tests.lsp.tmux_harness import private_tmux  # noqa: F401
from tests.lsp.tmux_harness import project
from tests.lsp.tmux_harness import server_env  # noqa: F401
from tests.lsp.tmux_harness import start
from tests.tmux.conftest import make_doc
from tests.tmux.conftest import spawn_agent

pytestmark = pytest.mark.tmux


async def test_sessions_lists_state_pane_last_answer_and_unsent_changes(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    claimed = make_doc(root, "claimed.md")
    pane = spawn_agent(private_tmux)
    claim(claimed, pane=pane)
    exchange = "<!-- agent:exchange -->\nq?\n<!-- /agent:exchange -->\n"
    typed = make_doc(root, "notes/typed.md", body=exchange)
    make_doc(root, "plain.md", session="")  # no session id: not listed
    session = await start(lsp_on_tmux, root, options={"statusIntervalMs": 100})
    uri = typed.as_uri()
    session.editor.open(uri, typed.read_text("utf-8"))
    answer = "<!-- patch:exchange -->\n### Re: q?\n\nyes\n<!-- /patch:exchange -->\n"
    await session.command("agentDoc.write", {"uri": uri, "response": answer})
    session.editor.append(uri, "a question not yet sent\n")
    await session.status(uri, "none")

    result = await session.command("agentDoc.sessions", {})
    rows = {row["name"]: row for row in result["sessions"]}
    assert sorted(rows) == ["claimed.md", "typed.md"]
    first = rows["claimed.md"]
    assert first["pane"] == pane
    assert first["state"] == "starting"
    assert first["open"] is False
    assert first["lastAnswer"] is None  # the agent never wrote
    assert first["unsent"] is False  # claim saved the snapshot: nothing typed since
    second = rows["typed.md"]
    assert second["uri"] == uri
    assert second["state"] == "none"
    assert second["pane"] is None
    assert second["open"] is True
    assert second["lastAnswer"] is not None
    assert (second["unsent"], second["unsentChanges"]) == (True, 1)

    StateStore.for_document(typed).save_snapshot(typed, session.editor.text(uri))
    result = await session.command("agentDoc.sessions", {})
    rows = {row["name"]: row for row in result["sessions"]}
    assert (rows["typed.md"]["unsent"], rows["typed.md"]["unsentChanges"]) == (
        False,
        0,
    )
    assert rows["claimed.md"]["state"] in ("starting", "running", "needs_input")
