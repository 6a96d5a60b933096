"""An editor's buffer joins its shared room through the real server (``sync``).

A real ``agent-doc serve``, the real language server over stdio (editor A), a
second Yjs peer and a CLI writer that shares no files with either: the
buffer (the client's own copy, edited only by the edits it applied) converges
with the room, the person's typing goes out and is kept while remote text
comes in, and edits made while the server is unreachable merge once.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.acp_editor import field_of
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import start_editor
from tests.share.proxy import FaultyProxy
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(120)

STATUS = "agentDoc/shareStatus"


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


async def sharing_editor(
    client: LanguageClient, project: Path, url: str, init_options: Any = None
) -> tuple[Editor, list[dict[str, Any]]]:
    statuses: list[dict[str, Any]] = []

    def on_status(_ls: LanguageClient, params: Any) -> None:
        fields = ("uri", "state", "peers", "label", "detail", "ownUndo")
        statuses.append({k: field_of(params, k) for k in fields})

    client.feature(STATUS)(on_status)
    editor = await start_editor(
        client,
        root=project,
        settings={"sync": url},
        initialization_options=init_options,
    )
    editor.open((project / "pair.md").as_uri(), DOC)
    return editor, statuses


async def label(editor: Editor, statuses: list[dict[str, Any]], wanted: str) -> None:
    await editor.wait_for(
        lambda: statuses and statuses[-1]["label"] == wanted,
        timeout=20,
        what=f"status {wanted!r} (got {statuses[-1:]})",
    )


async def type_slowly(editor: Editor, uri: str, after: str, chars: str) -> None:
    """Type ``chars`` one keystroke at a time after ``after``, at a human pace."""
    for i, ch in enumerate(chars):
        text = editor.text(uri)
        at = text.index(after) + len(after) + i
        pos = position_of(text, at, editor.encoding)
        editor.type(uri, pos.line, pos.character, ch)
        await asyncio.sleep(0.05)  # the person's pace, not a wait for an event


async def test_buffer_converges_with_a_peer_and_a_remote_writer_while_typing(
    client: LanguageClient, served: ServeProcess, tmp_path: Path
) -> None:
    project = served.root
    editor, statuses = await sharing_editor(client, project, served.url)
    uri = (project / "pair.md").as_uri()
    await label(editor, statuses, "shared · 0 peers")
    async with peer(served.room(), token_of(project)) as bob:
        await bob.until(lambda t: t == DOC)
        await type_slowly(editor, uri, "What is", " (quick)")
        await bob.until(lambda t: "What is (quick) 6 x 7?" in t)
        bob.type(str(bob.text).index("idle") + 4, " [bob]")
        await editor.wait_for(lambda: "idle [bob]" in editor.text(uri), 20, "bob")
        copy = tmp_path / "agent-host"
        copy.mkdir()
        shutil.copy(project / "pair.md", copy / "pair.md")
        token = tmp_path / "token"
        token.write_text(token_of(project))
        writer = asyncio.create_subprocess_exec(
            *_agent_doc("write", "pair.md", "--room", served.url),
            "--token-file",
            str(token),
            cwd=copy,
            stdin=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        proc = await writer
        typing = asyncio.ensure_future(type_slowly(editor, uri, "# Pairing", " notes"))
        _out, err = await asyncio.wait_for(proc.communicate(ANSWER.encode()), 30)
        assert proc.returncode == 0, err.decode()
        await typing
        await editor.wait_for(
            lambda: (
                "It is 42." in editor.text(uri) and str(bob.text) == editor.text(uri)
            ),
            30,
            "convergence",
        )
        final = editor.text(uri)
    for part in (
        "It is 42.",
        "What is (quick) 6 x 7?",
        "idle [bob]",
        "# Pairing notes",
    ):
        assert final.count(part) == 1, final
    assert final.count("<!-- agent:exchange -->") == 1
    labels = {s["label"] for s in statuses}
    assert "shared · 1 peer" not in labels  # a raw Provider shows no presence
    assert any(p.label == "agent-doc share" for p in editor.applied)


async def test_sync_set_only_in_the_editors_settings_joins_the_room(
    client: LanguageClient, served: ServeProcess
) -> None:
    """As Neovim sends it: ``agentDoc.sync`` only in the configuration section
    (pulled after ``initialized``), the document opened at once."""
    editor, statuses = await sharing_editor(
        client, served.root, served.url, init_options={}
    )
    await label(editor, statuses, "shared · 0 peers")


async def test_edits_made_offline_merge_once_on_reconnect(
    client: LanguageClient, served: ServeProcess
) -> None:
    project = served.root
    async with FaultyProxy(served.url) as proxy:
        editor, statuses = await sharing_editor(client, project, proxy.url)
        uri = (project / "pair.md").as_uri()
        await label(editor, statuses, "shared · 0 peers")
        async with peer(served.room(), token_of(project)) as bob:
            proxy.down = True
            proxy.cut()
            await label(editor, statuses, "offline")
            await type_slowly(editor, uri, "What is", " [offline]")
            bob.type(str(bob.text).index("idle") + 4, " [bob meanwhile]")
            proxy.down = False
            await label(editor, statuses, "shared · 0 peers")
            await editor.wait_for(
                lambda: (
                    "[bob meanwhile]" in editor.text(uri)
                    and str(bob.text) == editor.text(uri)
                ),
                30,
                "convergence after reconnect",
            )
            final = editor.text(uri)
    assert final.count("What is [offline] 6 x 7?") == 1
    assert final.count("idle [bob meanwhile]") == 1
    assert len(final) == len(DOC) + len(" [offline]") + len(" [bob meanwhile]")


def _agent_doc(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent_doc.cli.entry", *args]


async def test_a_document_that_becomes_a_session_document_joins_its_room_on_save(
    client: LanguageClient, served: ServeProcess
) -> None:
    """Opened as a plain file, it has no room; once the person saves it with an
    ``agent_doc_session`` (as ``agent-doc init`` on an open file gives), it
    joins the room without being reopened, and its text reaches the peers."""
    project = served.root
    late = project / "late.md"
    plain = "# Later\n\nNot shared yet.\n"
    late.write_text(plain, encoding="utf-8")
    editor, statuses = await sharing_editor(client, project, served.url)
    uri = late.as_uri()
    editor.open(uri, plain)
    await label(editor, statuses, "shared · 0 peers")  # pair.md, opened first
    editor.save(uri)
    await editor.settled(uri)  # a save of a plain file: nothing may join
    assert all(s["uri"] != uri for s in statuses)

    session = "3f6c2a1e-8d4b-4c5e-9a7f-1b2c3d4e5f60"
    head = f"---\nagent_doc_session: {session}\n---\n\n"
    start = types.Position(line=0, character=0)
    editor.replace(uri, types.Range(start=start, end=start), head)
    editor.save(uri)
    await editor.wait_for(
        lambda: any(s["uri"] == uri and s["state"] == "shared" for s in statuses),
        timeout=20,
        what=f"{uri} shared after the save (got {statuses[-3:]})",
    )
    async with peer(served.room(session), token_of(project)) as bob:
        await editor.wait_for(
            lambda: str(bob.text) == editor.text(uri), 20, "the peer has the text"
        )
        assert "Not shared yet." in str(bob.text)
