"""An editor's agent turn on a shared document takes the room's turn too.

A real ``agent-doc serve``, the real language server over stdio (the editor,
its buffer joined to the room) and an agent host with its own HOME running a
real ``agent-doc run --room``: while that host answers, the editor's
``agentDoc.runAgent`` is refused as a second local turn is, naming the
holder on its host; the host's answer lands once.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcServerError
from pytest_lsp import LanguageClient

from tests.lsp.test_share_sync import sharing_editor
from tests.share.agent_hosts import finished
from tests.share.agent_hosts import git
from tests.share.agent_hosts import new_host
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)


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
        await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="agentDoc.runAgent", arguments=[{"uri": uri}]
                )
            ),
            30,
        )
    why = str(refused.value)
    holder = f"pid {answering.pid} on {socket.gethostname()}, `run`, since "
    assert f"already has a turn running ({holder}" in why, why
    assert "run the agent again when that turn has ended" in why
    host.gate.touch()
    code, err = await finished(answering)
    assert code == 0, err
    text = await wait_file(project / "pair.md", lambda t: "It is 42." in t)
    assert text.count("It is 42.") == 1
