"""Presence in Neovim: the plugin shows other peers' cursors and sends its own.

A real ``agent-doc serve``, headless Neovim with the plugin (its own
``agentDoc/shareStatus`` handler, ``agent-doc-lsp`` over stdio) and a second
editor's peer in its own process (:mod:`tests.share.peer_process`): bob's
cursor becomes an extmark named "bob", Neovim's cursor reaches bob, and bob
killed with ``kill -9`` leaves no mark behind.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import Nvim
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for
from tests.share.rooms import ServeProcess
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(120)]

REPO = Path(__file__).resolve().parents[2]
HEADING = 5
"""The line of ``# Pairing`` in the shared document."""

SETUP = """
require("agent_doc").setup({{
  cmd = {{ {python}, "-m", "agent_doc_lsp" }},
  keymaps = false,
  auto_sync = false,
  cursor_throttle_ms = 50,
  settings = {{ statusIntervalMs = 0, sync = {sync}, syncUserName = "ann" }},
}})
"""
MARKS = (
    "local p = require('agent_doc.presence') "
    "local marks = vim.api.nvim_buf_get_extmarks(0, p.ns, 0, -1, { details = true }) "
    "return vim.tbl_map(function(m) "
    "return { m[2], m[3], m[4].virt_text[1][1] } end, marks)"
)
LABEL = "return require('agent_doc').share_statusline()"


class BobProcess:
    """The second editor's peer; its JSON reports read on a thread."""

    def __init__(self, served: ServeProcess) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.share.peer_process", served.room(),
             token_of(served.root), "bob"],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.reports: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.reports.put(json.loads(line))

    def until(self, check: Callable[[dict[str, Any]], bool], what: str) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if check(self.reports.get(timeout=deadline - time.monotonic())):
                    return
            except queue.Empty:
                break
        raise AssertionError(f"bob never saw {what}")

    def move(self, line: int, character: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line} {character}\n")
        self.proc.stdin.flush()


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


@pytest.fixture
def nvim(tmp_path: Path, served: ServeProcess) -> Iterator[Nvim]:
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed")
    init = tmp_path / "init.lua"
    init.write_text(
        SETUP.format(python=lua_string(sys.executable), sync=lua_string(served.url))
    )
    address = tmp_path / "nvim.sock"
    editor = Nvim(binary, address, served.root, tmp_path / "nvim.log")
    plugin = REPO / "editors" / "neovim"
    args = [binary, "--clean", "--headless", "--listen", str(address),
            "--cmd", f"set rtp^={plugin}", "--cmd", f"luafile {init}",
            str(served.root / "pair.md")]  # fmt: skip
    with editor.log.open("wb") as log:
        editor.proc = subprocess.Popen(
            args, cwd=served.root, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    try:
        wait_for(address.exists, 10, "nvim --listen socket")
        yield editor
    finally:
        editor.stop()


def test_neovim_shows_a_peers_cursor_sends_its_own_and_drops_a_killed_peer(
    nvim: Nvim, served: ServeProcess
) -> None:
    wait_for(lambda: nvim.lua(LABEL) == "shared · 0 peers", 30, "joined the room")
    bob = BobProcess(served)
    try:
        wait_for(lambda: nvim.lua(LABEL) == "shared · 1 peer", 20, "bob in the room")
        bob.move(HEADING, 2)
        wait_for(lambda: nvim.lua(MARKS) == [[HEADING, 2, " bob"]], 20, "bob's mark")

        nvim.lua(
            f"vim.api.nvim_win_set_cursor(0, {{{HEADING + 1}, 4}}) "
            "vim.cmd('doautocmd CursorMoved') return true"
        )
        bob.until(
            lambda r: any(
                p["name"] == "ann" and p["cursor"] == {"line": HEADING, "character": 4}
                for p in r["presence"]
            ),
            "Neovim's cursor",
        )
        bob.proc.kill()  # SIGKILL: no goodbye
        bob.proc.wait(timeout=10)
        killed = time.monotonic()
        wait_for(lambda: nvim.lua(MARKS) == [], 10, "bob's mark gone")
        assert time.monotonic() - killed < 2.0
        assert nvim.lua(LABEL) == "shared · 0 peers"
    finally:
        if bob.proc.poll() is None:
            bob.proc.kill()
            bob.proc.wait(timeout=10)
