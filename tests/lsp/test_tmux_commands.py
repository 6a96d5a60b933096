"""Session routing commands over LSP, against a real private tmux server."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from agent_doc.tmux.adapter import Tmux
from tests.lsp.tmux_harness import lsp_on_tmux  # noqa: F401
from tests.lsp.tmux_harness import private_tmux  # noqa: F401
from tests.lsp.tmux_harness import project
from tests.lsp.tmux_harness import server_env  # noqa: F401
from tests.lsp.tmux_harness import start
from tests.lsp.tmux_harness import wait_text
from tests.tmux.conftest import make_doc
from tests.tmux.conftest import spawn_agent

pytestmark = pytest.mark.tmux


async def test_claim_then_route_types_the_command_in_the_agent_pane(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc = make_doc(root, "notes/doc.md")
    pane = spawn_agent(private_tmux)
    session = await start(lsp_on_tmux, root)
    session.editor.open(doc.as_uri(), doc.read_text("utf-8"))

    claimed = await session.command(
        "agentDoc.claim", {"uri": doc.as_uri(), "pane": pane}
    )
    assert claimed["pane"] == pane
    assert claimed["file"] == "notes/doc.md"
    routed = await session.command("agentDoc.route", {"uri": doc.as_uri()})
    assert routed["pane"] == pane
    assert routed["status"] == "sent"

    screen = await wait_text(private_tmux, pane, "received: /agent-doc notes/doc.md")
    assert "done: notes/doc.md" in await wait_text(private_tmux, pane, "done:")
    assert screen.count("received:") == 1
    focused = await session.command("agentDoc.focus", {"uri": doc.as_uri()})
    assert focused == {"pane": pane}
    report = await session.command("agentDoc.resync", {"uri": doc.as_uri()})
    assert report["issues"] == []
    assert report["pruned"] == []


async def test_sync_with_two_columns_puts_two_agent_panes_side_by_side(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    left = make_doc(root, "left.md")
    right = make_doc(root, "right.md")
    session = await start(lsp_on_tmux, root)
    for doc in (left, right):
        session.editor.open(doc.as_uri(), doc.read_text("utf-8"))

    result = await session.command(
        "agentDoc.sync",
        {"columns": [[left.as_uri()], [right.as_uri()]], "focus": left.as_uri()},
    )

    assert result["ok"] is True
    window = result["window"]
    (left_pane,), (right_pane,) = result["columns"]
    assert result["files"] == {str(left): left_pane, str(right): right_pane}
    rows = private_tmux.run(
        "list-panes", "-t", window, "-F", "#{pane_id} #{pane_left} #{pane_top}"
    )
    geometry = {pid: (int(x), int(y)) for pid, x, y in (r.split() for r in rows)}
    assert geometry[left_pane][0] < geometry[right_pane][0]
    assert geometry[left_pane][1] == geometry[right_pane][1]
    await wait_text(private_tmux, left_pane, "❯")
    await wait_text(private_tmux, right_pane, "❯")


async def test_layout_joins_the_claimed_panes_side_by_side(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    first, second = make_doc(root, "a.md"), make_doc(root, "b.md")
    panes = [spawn_agent(private_tmux), spawn_agent(private_tmux)]
    session = await start(lsp_on_tmux, root)
    for doc, pane in zip((first, second), panes, strict=True):
        await session.command("agentDoc.claim", {"uri": doc.as_uri(), "pane": pane})
    windows = {private_tmux.panes()[p].window_id for p in panes}
    assert len(windows) == 2

    result = await session.command(
        "agentDoc.layout", {"uris": [first.as_uri(), second.as_uri()]}
    )

    assert result["panes"] == panes
    assert result["warnings"] == []
    after = private_tmux.panes()
    assert after[panes[0]].window_id == after[panes[1]].window_id == result["window"]
    assert after[panes[0]].left != after[panes[1]].left


async def test_a_document_without_session_gets_a_clear_error(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc = make_doc(root, "plain.md", session="")
    session = await start(lsp_on_tmux, root)
    session.editor.open(doc.as_uri(), doc.read_text("utf-8"))

    with pytest.raises(JsonRpcException, match=r"plain\.md: no session UUID"):
        await session.command("agentDoc.focus", {"uri": doc.as_uri()})

    shown = await session.wait_for(
        lambda: [m for m in lsp_on_tmux.messages if "no session UUID" in m.message],
        what="window/showMessage",
    )
    assert shown[0].message.startswith("agent-doc: plain.md: no session UUID")
    assert "\n" not in shown[0].message
    assert doc.read_text("utf-8") == "# Doc\n"


async def test_bad_arguments_are_invalid_params(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    tmp_path: Path,
) -> None:
    session = await start(lsp_on_tmux, project(tmp_path))
    with pytest.raises(JsonRpcException, match="Invalid Params"):
        await session.command("agentDoc.route", {"pane": "%1"})
