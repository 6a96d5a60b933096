"""``agentDoc.undo`` / ``agentDoc.redo`` in a shared document, through a real
``agent-doc serve``: the person's undo removes their own text only — never a
peer's typing or the agent's answer — in the buffer, the room and the file."""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.acp_editor import field_of
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import start_editor
from tests.lsp.test_share_sync import _agent_doc
from tests.lsp.test_share_sync import label
from tests.lsp.test_share_sync import sharing_editor
from tests.lsp.test_share_sync import type_slowly
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)

MINE = " (mine)"
SLOW = """---
agent_doc_session: {session}
agent_doc_format: template
agent_doc_debounce_ms: 8000
---

# Slow

Slow typist.
"""


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


async def execute(client: LanguageClient, command: str, uri: str) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[{"uri": uri}])
        ),
        20,
    )


async def _remote_answer(served: ServeProcess, tmp_path: Path) -> None:
    """The agent's answer, written by a CLI that shares no files with the editor."""
    copy = tmp_path / "agent-host"
    copy.mkdir()
    shutil.copy(served.root / "pair.md", copy / "pair.md")
    token = tmp_path / "token"
    token.write_text(token_of(served.root))
    proc = await asyncio.create_subprocess_exec(
        *_agent_doc("write", "pair.md", "--room", served.url),
        "--token-file",
        str(token),
        cwd=copy,
        stdin=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(ANSWER.encode()), 30)
    assert proc.returncode == 0, err.decode()


async def test_undo_removes_the_persons_text_and_keeps_the_peers_and_the_agents(
    client: LanguageClient, served: ServeProcess, tmp_path: Path
) -> None:
    project = served.root
    editor, statuses = await sharing_editor(client, project, served.url)
    uri = (project / "pair.md").as_uri()
    await label(editor, statuses, "shared · 0 peers")
    assert statuses[-1]["ownUndo"] is True  # the editor maps its undo keys now
    async with peer(served.room(), token_of(project)) as bob:
        await bob.until(lambda t: t == DOC)
        await type_slowly(editor, uri, "What is", MINE)
        await bob.until(lambda t: f"What is{MINE} 6 x 7?" in t)
        bob.type(str(bob.text).index("idle") + 4, " [bob]")
        await _remote_answer(served, tmp_path)
        await editor.wait_for(
            lambda: "[bob]" in editor.text(uri) and "It is 42." in editor.text(uri),
            20,
            "bob's text and the answer in the buffer",
        )

        result = await execute(client, "agentDoc.undo", uri)
        assert field_of(result, "shared") is True
        assert field_of(result, "done") is True
        undone = editor.text(uri)  # the command returns once the buffer has it
        at = undone.index("What is") + len("What is")  # where the words were
        position, wanted = field_of(result, "position"), position_of(undone, at)
        assert field_of(position, "line") == wanted.line
        # " (mine)" before " 6" or "(mine) " after "is ": the same deletion
        assert field_of(position, "character") in (
            wanted.character,
            wanted.character + 1,
        )
        assert MINE not in undone
        assert undone.count("idle [bob]") == 1
        assert undone.count("It is 42.") == 1
        assert await bob.until(lambda t: t == undone) == undone
        await wait_file(project / "pair.md", lambda t: t == undone)

        result = await execute(client, "agentDoc.redo", uri)
        assert field_of(result, "done") is True
        redone = editor.text(uri)
        assert redone.count(f"What is{MINE} 6 x 7?") == 1
        assert redone == undone.replace("What is", f"What is{MINE}")
        assert await bob.until(lambda t: t == redone) == redone
        await wait_file(project / "pair.md", lambda t: t == redone)

        assert field_of(await execute(client, "agentDoc.redo", uri), "done") is False


async def test_a_document_without_a_room_tells_the_editor_to_use_its_own_undo(
    client: LanguageClient, served: ServeProcess
) -> None:
    project = served.root
    editor, statuses = await sharing_editor(client, project, served.url)
    await label(editor, statuses, "shared · 0 peers")
    plain = project / "plain.md"
    plain.write_text("# Plain\n", encoding="utf-8")
    editor.open(plain.as_uri(), "# Plain\n")
    editor.type(plain.as_uri(), 1, 0, "typed\n")
    result = await execute(client, "agentDoc.undo", plain.as_uri())
    assert field_of(result, "shared") is False
    assert editor.text(plain.as_uri()) == "# Plain\ntyped\n"


async def test_undo_lands_at_once_without_waiting_for_a_typing_pause(
    client: LanguageClient, served: ServeProcess
) -> None:
    """A remote change waits for the person's pause (here 8 s); the person's
    own undo does not: they asked for it."""
    project = served.root
    slow = project / "slow.md"
    text = SLOW.format(session=uuid.uuid4())
    slow.write_text(text, encoding="utf-8")
    editor, statuses = await sharing_editor(
        client, project, served.url, init_options={"writeTimeoutMs": 20000}
    )
    uri = slow.as_uri()
    editor.open(uri, text)
    await editor.wait_for(
        lambda: any(s["uri"] == uri and s["ownUndo"] for s in statuses),
        20,
        f"{uri} shared (got {statuses[-3:]})",
    )
    line = text.split("\n").index("Slow typist.")
    editor.type(uri, line, len("Slow typist."), " Typed just now.")
    started = time.monotonic()
    result = await execute(client, "agentDoc.undo", uri)
    took = time.monotonic() - started
    assert field_of(result, "done") is True
    assert editor.text(uri) == text
    assert took < 4, f"the undo waited {took:.1f} s, as for a typing pause"


async def test_unsaved_typing_before_the_document_joins_its_room_is_kept(
    client: LanguageClient, served: ServeProcess
) -> None:
    """Typed before the document joined (``agentDoc.sync`` set while it was
    open with unsaved changes): those changes are the person's, merged onto
    the room's text — not old text the room's version replaces — and they are
    the person's to undo."""
    project = served.root
    editor = await start_editor(client, root=project, settings={})
    uri = (project / "pair.md").as_uri()
    editor.open(uri, DOC)
    await type_slowly(editor, uri, "What is", MINE)
    async with peer(served.room(), token_of(project)) as bob:
        bob.type(str(bob.text).index("idle") + 4, " [bob]")  # the room moved on
        await bob.until(lambda t: "[bob]" in t)
        client.set_configuration({"sync": served.url}, section="agentDoc")
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        await editor.wait_for(
            lambda: "[bob]" in editor.text(uri), 45, "the room's text in the buffer"
        )
        await bob.until(lambda t: MINE in t)
        text = editor.text(uri)
        assert text.count(f"What is{MINE} 6 x 7?") == 1
        assert text.count("idle [bob]") == 1
        assert await bob.until(lambda t: t == text) == text
        result = await execute(client, "agentDoc.undo", uri)
        assert field_of(result, "done") is True
        assert editor.text(uri) == text.replace(MINE, "")
