"""Permission prompts answered from the editor (spec U11), against real tmux."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from tests.lsp.tmux_harness import Session
from tests.lsp.tmux_harness import lsp_on_tmux  # noqa: F401
from tests.lsp.tmux_harness import private_tmux  # noqa: F401
from tests.lsp.tmux_harness import project
from tests.lsp.tmux_harness import server_env  # noqa: F401
from tests.lsp.tmux_harness import start
from tests.lsp.tmux_harness import wait_text
from tests.tmux.conftest import make_doc
from tests.tmux.conftest import spawn_agent

pytestmark = pytest.mark.tmux

OPTIONS = ["Yes", "Yes, and don't ask again", "No"]
FAST = {"statusIntervalMs": 100}


async def answer_lenses(session: Session, uri: str, present: bool) -> list[str]:
    """Wait (bounded) until ``Answer:`` lenses are shown (or gone); their titles."""
    titles: list[str] = []
    for _ in range(150):  # ~15 s
        lenses = await session.lenses(uri)
        titles = [
            lens.command.title
            for lens in lenses
            if lens.command is not None
            and lens.command.command == "agentDoc.answerPrompt"
        ]
        if bool(titles) == present:
            return titles
        await session.tick()
    raise AssertionError(f"Answer lenses present={present} never seen: {titles}")


def setup_agent(tmux: Tmux, root: Path) -> tuple[Path, str]:
    """A claimed document and its agent pane."""
    doc = make_doc(root, "doc.md")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane)
    return doc, pane


async def test_prompt_is_asked_once_and_the_chosen_action_answers_the_agent(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc, pane = setup_agent(private_tmux, root)
    session = await start(
        lsp_on_tmux, root, actions=True, pick=lambda _params: "No", options=FAST
    )
    uri = doc.as_uri()
    session.editor.open(uri, doc.read_text("utf-8"))
    await session.status(uri, "starting")

    private_tmux.send_text(pane, "ask")
    screen = await wait_text(private_tmux, pane, "answered:")

    assert "answered: 3 No" in screen
    assert len(session.requests) == 1
    request = session.requests[0]
    assert [a.title for a in request.actions or []] == OPTIONS
    assert "Do you want to proceed?" in request.message
    assert pane in request.message
    assert request.type == types.MessageType.Warning
    waiting = [s for s in session.statuses if s["detail"].startswith("permission")]
    assert waiting[0]["state"] == "needs_input"
    assert waiting[0]["detail"] == "permission: Do you want to proceed?"
    assert await answer_lenses(session, uri, present=False) == []

    # once the pane showed something else, the same dialog is a new prompt
    await session.wait_for(
        lambda: session.statuses[-1]["detail"] == "", what="prompt gone"
    )
    private_tmux.send_text(pane, "ask")
    await session.wait_for(
        lambda: len(session.requests) == 2,
        what="second request",
    )
    await wait_text(private_tmux, pane, "answered: 3 No")


@pytest.mark.parametrize(
    "actions",
    [
        pytest.param(False, id="no-messageActionItem"),
        pytest.param(True, id="request-dismissed"),
    ],
)
async def test_answer_lenses_are_the_fallback(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
    actions: bool,
) -> None:
    root = project(tmp_path)
    doc, pane = setup_agent(private_tmux, root)
    session = await start(lsp_on_tmux, root, actions=actions, options=FAST)
    uri = doc.as_uri()
    session.editor.open(uri, doc.read_text("utf-8"))
    await session.status(uri, "starting")

    private_tmux.send_text(pane, "ask")
    titles = await answer_lenses(session, uri, present=True)

    assert titles == [f"Answer: {label}" for label in OPTIONS]
    assert len(session.requests) == (1 if actions else 0)
    lens = next(
        lens
        for lens in await session.lenses(uri)
        if lens.command is not None and lens.command.title == f"Answer: {OPTIONS[1]}"
    )
    assert lens.command is not None
    arguments = list(lens.command.arguments or [])
    assert arguments == [{"uri": uri, "option": 2}]
    result = await session.command(lens.command.command, arguments[0])
    assert result == {"uri": uri, "option": 2, "label": OPTIONS[1]}
    await wait_text(private_tmux, pane, f"answered: 2 {OPTIONS[1]}")
    assert await answer_lenses(session, uri, present=False) == []
    assert session.refreshes > 0


async def test_answering_without_a_prompt_is_a_clear_error(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc, pane = setup_agent(private_tmux, root)
    session = await start(lsp_on_tmux, root)
    from pygls.exceptions import JsonRpcException

    with pytest.raises(
        JsonRpcException, match=f"no permission prompt is active in pane {pane}"
    ):
        await session.command(
            "agentDoc.answerPrompt", {"uri": doc.as_uri(), "option": 1}
        )
