"""Agent state in the editor: ``agentDoc/status`` and the status lens (real tmux)."""

from __future__ import annotations

import itertools
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
from tests.lsp.tmux_harness import start
from tests.lsp.tmux_harness import wait_text
from tests.tmux.conftest import make_doc
from tests.tmux.conftest import spawn_agent

pytestmark = pytest.mark.tmux

FAST = {"statusIntervalMs": 100}


@pytest.fixture
def server_env() -> dict[str, str]:
    """Short idle/stale timeouts so every state shows within a few seconds."""
    return {"AGENT_DOC_IDLE_TIMEOUT_MS": "500", "AGENT_DOC_STALE_TIMEOUT_MS": "700"}


def status_lens(lenses: list[types.CodeLens]) -> types.CodeLens | None:
    """The status lens (the one bound to ``agentDoc.focus`` or without command)."""
    for lens in lenses:
        command = lens.command
        if command is not None and command.command in ("agentDoc.focus", ""):
            return lens
    return None


async def lens_title(session: Session, uri: str, needle: str) -> str:
    """Wait until the status lens of ``uri`` contains ``needle``; return its title."""

    async def title() -> str:
        lens = status_lens(await session.lenses(uri))
        return lens.command.title if lens is not None and lens.command else ""

    seen = ""
    for _ in range(150):  # bounded: at most ~15 s
        seen = await title()
        if needle in seen:
            return seen
        await session.tick()
    raise AssertionError(f"status lens never showed {needle!r}; last: {seen!r}")


async def test_status_follows_the_agent_through_its_lifecycle(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc = make_doc(root, "doc.md")
    pane = spawn_agent(private_tmux)
    private_tmux.keep_on_exit(pane)
    claim(doc, pane=pane)
    session = await start(lsp_on_tmux, root, options=FAST)
    uri = doc.as_uri()
    session.editor.open(uri, doc.read_text("utf-8"))

    first = await session.status(uri, "starting")
    assert first["pane"] == pane
    assert first["agent"] == "fake_agent"  # the configured agent, not "python3"
    assert set(first) == {"uri", "state", "pane", "agent", "detail", "exitCode"}
    assert "starting in " + pane in await lens_title(session, uri, "starting")

    private_tmux.send_text(pane, "/agent-doc doc.md")
    await session.status(uri, "running")
    await session.status(uri, "needs_input")
    stale = await session.status(uri, "stale")
    assert stale["detail"] == "waiting for you"
    title = await lens_title(session, uri, "stale")
    assert title == f"◔ fake_agent — stale in {pane} (waiting for you)"

    private_tmux.send_text(pane, "/exit 3")
    exited = await session.status(uri, "exited")
    # tmux 3.3 sometimes marks the pane dead without recording its exit status
    assert exited["exitCode"] in (3, None)
    assert exited["detail"] in ("exit code 3", "pane gone")
    assert f"exited in {pane}" in await lens_title(session, uri, "exited")
    assert session.refreshes > 0
    # one notification per change: no two consecutive payloads are equal
    mine = [s for s in session.statuses if s["uri"] == uri]
    assert all(a != b for a, b in itertools.pairwise(mine))


async def test_unregistered_document_is_none_until_claimed(
    lsp_on_tmux: LanguageClient,  # noqa: F811
    private_tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    doc = make_doc(root, "doc.md")
    plain = make_doc(root, "plain.md", session="")
    pane = spawn_agent(private_tmux)
    session = await start(lsp_on_tmux, root, options=FAST, refresh=False)
    uri = doc.as_uri()
    session.editor.open(plain.as_uri(), plain.read_text("utf-8"))
    session.editor.open(uri, doc.read_text("utf-8"))

    none = await session.status(uri, "none")
    assert none["pane"] is None
    assert "no agent pane" in await lens_title(session, uri, "no agent pane")

    await session.command("agentDoc.claim", {"uri": uri, "pane": pane})
    live = await session.status(uri, "starting")
    assert live["pane"] == pane
    await wait_text(private_tmux, pane, "❯")
    assert session.refreshes == 0  # the client did not offer refreshSupport
    assert all(s["uri"] == uri for s in session.statuses)  # plain.md: no session


@pytest.mark.parametrize(
    "front",
    [
        pytest.param("---\nagent_doc_session: s1\n---\n", id="small"),
        pytest.param(
            "---\nagent_doc_session: s1\n" + "#\n" * 32_760 + "---\n", id="at-limit"
        ),
        pytest.param(
            "---\nagent_doc_session: s1\n" + "#\n" * 32_800 + "---\n", id="too-large"
        ),
        pytest.param(
            "---\nagent_doc_session: s1\n" + "#\n" * 40_000, id="unterminated"
        ),
        pytest.param("no frontmatter\n", id="none"),
    ],
)
def test_the_poller_reads_only_the_head_and_finds_the_same_session(front):
    from agent_doc.editor import agent_status as editor_status
    from agent_doc_lsp.server import create_server

    server = create_server()
    server.protocol.use_fast_workspace()  # as initialize makes it
    uri = "file:///tmp/head.md"
    text = front + "body\n" * 30_000
    server.workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
    )
    head = server.buffers.head(uri)
    assert head is not None
    assert len(head.text) < len(text)
    assert editor_status.open_doc("/tmp/head.md", head.text) == editor_status.open_doc(
        "/tmp/head.md", text
    )
