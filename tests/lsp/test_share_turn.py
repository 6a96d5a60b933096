"""An editor's agent turn on a shared document takes the room's turn too.

A real ``agent-doc serve``, the real language server over stdio (the editor,
its buffer joined to the room) and an agent host with its own HOME running a
real ``agent-doc run --room``: while that host answers, the editor's
``agentDoc.runAgent`` is refused as a second local turn is, naming the
holder on its host; the host's answer lands once.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcServerError
from pytest_lsp import LanguageClient

from agent_doc.share.turn_state import room_snapshot
from tests.acp_standin import configure_standin
from tests.lsp.editor_client import start_editor
from tests.lsp.test_share_sync import sharing_editor
from tests.share.agent_hosts import finished
from tests.share.agent_hosts import git
from tests.share.agent_hosts import new_host
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)


async def run_agent(client: LanguageClient, uri: str) -> Any:
    """``agentDoc.runAgent`` on ``uri``."""
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="agentDoc.runAgent", arguments=[{"uri": uri}]
        )
    )


def served_with_standin(
    project: Path, tmp_path: Path, settings: dict[str, str]
) -> tuple[str, ServeProcess]:
    """``pair.md`` answered by the ACP stand-in (with ``settings``),
    committed, and a real serve of the project: its text and the server."""
    text = DOC.replace(
        "agent_doc_format: template", "agent_doc_format: template\nagent: standin"
    )
    (project / "pair.md").write_text(text, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    configure_standin(tmp_path, settings)
    return text, ServeProcess(project).start()


async def nothing_left_to_send(server: ServeProcess, host: Any, answer: str) -> None:
    """Once serve merged ``answer`` into the room, a ``run --room`` from
    ``host`` has nothing to send (the room's snapshot holds the answer)."""
    async with peer(server.room(), token_of(server.root)) as watcher:
        await watcher.until(lambda t: answer in t)
    code, err = await finished(host.run(server.url, "--agent", "gated"))
    assert code == 0, err
    assert "nothing to send" in err, err
    assert host.prompts() == []


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    server = ServeProcess(project).start()
    yield server
    server.kill()


async def test_run_agent_is_refused_while_another_host_answers_in_the_room(
    client: LanguageClient, project: Path, tmp_path: Path, served: ServeProcess
) -> None:
    host = new_host(tmp_path, project, served)
    answering = host.run(served.url, "--agent", "gated")
    await wait_file(host.calls, lambda t: t.strip() != "", timeout=30)
    editor, statuses = await sharing_editor(client, project, served.url)
    await editor.wait_for(
        lambda: bool(statuses) and statuses[-1]["label"].startswith("shared"),
        timeout=20,
        what=f"the room joined (got {statuses[-1:]})",
    )
    uri = (project / "pair.md").as_uri()
    with pytest.raises(JsonRpcServerError) as refused:
        await asyncio.wait_for(run_agent(client, uri), 30)
    why = str(refused.value)
    holder = f"pid {answering.pid} on {socket.gethostname()}, `run`, since "
    assert f"already has a turn running ({holder}" in why, why
    assert "run the agent again when that turn has ended" in why
    host.gate.touch()
    code, err = await finished(answering)
    assert code == 0, err
    text = await wait_file(project / "pair.md", lambda t: "It is 42." in t)
    assert text.count("It is 42.") == 1


async def test_run_agent_on_a_served_document_not_joined_takes_the_rooms_turn(
    client: LanguageClient, project: Path, tmp_path: Path, served: ServeProcess
) -> None:
    """The editor has not joined the room (no ``sync``), but this host's
    ``serve`` shares the document: its runAgent is refused while another
    host answers in the room, as a joined editor's is."""
    host = new_host(tmp_path, project, served)
    answering = host.run(served.url, "--agent", "gated")
    await wait_file(host.calls, lambda t: t.strip() != "", timeout=30)
    editor = await start_editor(client, root=project)
    uri = (project / "pair.md").as_uri()
    editor.open(uri, (project / "pair.md").read_text())
    with pytest.raises(JsonRpcServerError) as refused:
        await asyncio.wait_for(run_agent(client, uri), 30)
    why = str(refused.value)
    assert f"already has a turn running (pid {answering.pid} on " in why, why
    host.gate.touch()
    code, err = await finished(answering)
    assert code == 0, err


async def test_an_editors_turn_moves_the_rooms_snapshot_and_keeps_its_session(
    client: LanguageClient, project: Path, tmp_path: Path
) -> None:
    """The editor's agent answers a shared document: its session id stays on
    the editor's host (not in the room's frontmatter), and the room's
    snapshot is its answer, so another host's ``run --room`` has nothing to
    send."""
    text, server = served_with_standin(
        project, tmp_path, {"ACP_AGENT_REPLY": "Forty-two."}
    )
    try:
        host = new_host(tmp_path, project, server)
        editor = await start_editor(client, root=project, settings={"sync": server.url})
        uri = (project / "pair.md").as_uri()
        editor.open(uri, text)
        answered = await asyncio.wait_for(run_agent(client, uri), 60)
        assert answered["target"] == "server"
        landed = await wait_file(project / "pair.md", lambda t: "Forty-two." in t)
        assert "resume:" not in landed
        kept = list((project / ".agent-doc" / "room-sessions").glob("*.txt"))
        assert len(kept) == 1  # the editor's host keeps its agent's session
        assert kept[0].read_text().strip() == answered["sessionId"]
        code, err = await finished(host.run(server.url, "--agent", "gated"))
        assert code == 0, err
        assert "nothing to send" in err, err
        assert host.prompts() == []
    finally:
        server.kill()


async def test_run_agent_without_a_buffer_moves_the_rooms_snapshot(
    client: LanguageClient, project: Path, tmp_path: Path
) -> None:
    """runAgent on a document this host's serve shares, with no buffer open
    (the answer goes to disk): the room's snapshot becomes the answer and the
    agent's session stays on this host, so another host has nothing to send."""
    _, server = served_with_standin(
        project, tmp_path, {"ACP_AGENT_REPLY": "Forty-two."}
    )
    try:
        host = new_host(tmp_path, project, server)
        await start_editor(client, root=project)  # no sync, nothing open
        uri = (project / "pair.md").as_uri()
        answered = await asyncio.wait_for(run_agent(client, uri), 60)
        assert answered["target"] == "disk"
        landed = await wait_file(project / "pair.md", lambda t: "Forty-two." in t)
        assert "resume:" not in landed  # the session is this host's
        await nothing_left_to_send(server, host, "Forty-two.")
    finally:
        server.kill()


async def test_a_buffer_closed_mid_stream_moves_the_rooms_snapshot(
    client: LanguageClient, project: Path, tmp_path: Path
) -> None:
    """The editor's agent answers a joined shared document and the person
    closes the buffer mid-stream: the answer finishes on disk, the room's
    snapshot becomes it, the session stays on this host."""
    words = " ".join(f"word{i}" for i in range(40))
    text, server = served_with_standin(
        project,
        tmp_path,
        {"ACP_AGENT_REPLY": words, "ACP_AGENT_CHUNK": "6", "ACP_AGENT_DELAY": "0.1"},
    )
    try:
        host = new_host(tmp_path, project, server)
        editor = await start_editor(client, root=project, settings={"sync": server.url})
        uri = (project / "pair.md").as_uri()
        editor.open(uri, text)
        running = asyncio.ensure_future(run_agent(client, uri))
        await editor.wait_for(lambda: "word2 " in editor.text(uri), timeout=60)
        editor.close(uri)
        answered = await asyncio.wait_for(running, 60)
        assert answered["target"] == "disk"
        landed = await wait_file(project / "pair.md", lambda t: "word39" in t)
        assert landed.count("word39") == 1
        assert "resume:" not in landed  # the session is this host's
        async with peer(server.room(), token_of(project)) as watcher:
            await watcher.until(lambda t: "word39" in t)
        code, err = await finished(host.run(server.url, "--agent", "gated"))
        assert code == 0, err
        assert "nothing to send" in err, err
    finally:
        server.kill()


async def test_an_answer_in_a_buffer_not_joined_moves_the_rooms_snapshot_on_save(
    client: LanguageClient, project: Path, tmp_path: Path
) -> None:
    """runAgent on a document this host's serve shares, open in an editor
    that does not sync it: the answer lands in the buffer only, so the room
    cannot have it; once the person saves (serve merges the file into the
    room) the room's snapshot becomes the answer, and another host has
    nothing to send. The session stays on this host."""
    text, server = served_with_standin(
        project, tmp_path, {"ACP_AGENT_REPLY": "Forty-two."}
    )
    try:
        host = new_host(tmp_path, project, server)
        editor = await start_editor(client, root=project)  # no sync setting
        uri = (project / "pair.md").as_uri()
        editor.open(uri, text)
        answered = await asyncio.wait_for(run_agent(client, uri), 60)
        assert answered["target"] == "server"
        assert "Forty-two." in editor.text(uri)
        assert "resume:" not in editor.text(uri)  # the session is this host's
        assert "Forty-two." not in (project / "pair.md").read_text()
        editor.save(uri)
        await nothing_left_to_send(server, host, "Forty-two.")
    finally:
        server.kill()


async def test_a_local_runs_answer_in_a_buffer_not_joined_moves_the_room_on_save(
    client: LanguageClient, project: Path, tmp_path: Path, served: ServeProcess
) -> None:
    """A plain ``agent-doc run`` on serve's host while an editor that does not
    sync the document has it open: the answer is handed to the editor's
    buffer, so the run does not wait for serve to see it (it cannot before a
    save); the editor's server moves the room's snapshot once the person
    saves, and another host has nothing to send."""
    host_a = new_host(tmp_path, project, served, "host-a")
    host_b = new_host(tmp_path, project, served, "host-b")
    host_b.gate.touch()
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err  # host b's agent has a session (its next prompt: a diff)
    async with peer(served.room(), token_of(project)) as alice:
        await alice.until(lambda t: "It is 42." in t)
    pair = project / "pair.md"
    text = await wait_file(pair, lambda t: "It is 42." in t)
    editor = await start_editor(client, root=project)  # no sync setting
    uri = pair.as_uri()
    editor.open(uri, text)
    editor.append(uri, "\nAnd 5 + 5?\n")
    editor.save(uri)
    async with peer(served.room(), token_of(project)) as alice:
        await alice.until(lambda t: "And 5 + 5?" in t)
    host_a.gate.touch()
    local = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "pair.md",
         "--agent", "gated", "--no-git"],
        cwd=project, env={**os.environ, **host_a.env}, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    assert "snapshot was not moved" not in local.stderr, local.stderr
    await editor.wait_for(lambda: editor.text(uri).count("It is 42.") == 2)
    assert pair.read_text().count("It is 42.") == 1  # in the buffer only
    async with peer(served.room(), token_of(project)) as alice:
        snapshot = room_snapshot(alice.doc)  # never ahead of the room's text
        assert snapshot is not None
        assert "And 5 + 5?" not in snapshot, snapshot
    editor.save(uri)
    async with peer(served.room(), token_of(project)) as alice:
        await alice.until(lambda t: t.count("It is 42.") == 2)
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err
    assert "nothing to send" in err, err
