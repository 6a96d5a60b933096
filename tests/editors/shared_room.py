"""People on their own machines, one shared room: checkouts, editors, the room.

Helpers of :mod:`tests.editors.test_shared_editors`. Each *host* (a person's
laptop, the agent's dev box) is a folder with its own HOME, XDG folders, token
file and checkout of the project; nothing is shared with the served project
but the room's URL and a copy of its token. Neovim joins through its
``agentDoc.sync`` settings, Emacs through its checkout's
``.agent-doc/config.toml`` (both ways a person can choose). The room's text
is read with a pycrdt peer while the server runs, and from its SQLite store
after it stopped.
"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from tests.editors.harness import EDITORS
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Emacs
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import lisp_string
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for
from tests.share.rooms import peer


@dataclass(frozen=True)
class Host:
    """One machine: its HOME (with the token) and its checkout of the project."""

    home: Path
    checkout: Path
    token_file: Path

    def env(self) -> dict[str, str]:
        """The environment of programs run on this host."""
        return {
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": str(self.home / "run"),
        }

    def server_command(self) -> list[str]:
        """The language server's command, logging to ``HOME/lsp.log``."""
        log = str(self.home / "lsp.log")
        return [*SERVER_CMD, "--log-file", log, "--log-level", "info"]

    def command(self, *argv: str) -> str:
        """A shell command running ``argv`` in this host's environment."""
        pairs = [f"{k}={v}" for k, v in self.env().items()]
        return shlex.join(["env", *pairs, *argv])


def make_host(base: Path, served: Path, doc: str, token: str) -> Host:
    """A host under ``base`` with a checkout of ``served`` (only ``doc`` and
    ``.agent-doc/``) and a copy of the server's token."""
    home = base / "home"
    (home / "run").mkdir(parents=True, mode=0o700)
    checkout = base / "checkout"
    (checkout / ".agent-doc").mkdir(parents=True)
    shutil.copy(served / doc, checkout / doc)
    token_file = home / "token"
    token_file.write_text(token + "\n", "utf-8")
    token_file.chmod(0o600)
    return Host(home, checkout, token_file)


NVIM_INIT = """
vim.opt.rtp:prepend({plugin})
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "aFW"
require("agent_doc").setup({{
  cmd = vim.json.decode({cmd}),
  keymaps = false,
  auto_sync = false,
  settings = {{ statusIntervalMs = 0, sync = {sync}, syncTokenFile = {token} }},
}})
"""


@contextmanager
def neovim_pane(
    tmux: PrivateTmux, nvim: str, host: Host, doc: Path, sync: str
) -> Iterator[tuple[str, Nvim]]:
    """Neovim (TUI) on ``host`` in a new window of ``tmux``, syncing ``doc``
    to ``sync`` through its settings; yield the pane and its RPC client."""
    init = host.home / "init.lua"
    init.write_text(
        NVIM_INIT.format(
            plugin=lua_string(str(EDITORS / "neovim")),
            cmd=lua_string(json.dumps(host.server_command())),
            sync=lua_string(sync),
            token=lua_string(str(host.token_file)),
        ),
        "utf-8",
    )
    address = host.home / "nvim.sock"
    command = host.command(
        nvim, "--clean", "-n", "--listen", str(address), "-u", str(init), str(doc)
    )
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:",
        "-c", str(host.checkout), command,
    ).strip()  # fmt: skip
    editor = Nvim(nvim, address, host.checkout, host.home / "nvim.log")
    try:
        wait_for(address.exists, 15, "nvim --listen socket")
        wait_for(
            lambda: editor.lua("return #vim.lsp.get_clients({ bufnr = 0 })") == 1,
            20,
            "agent-doc client attached in Neovim",
        )
        yield pane, editor
    finally:
        tmux.run("kill-pane", "-t", pane, check=False)


def emacs_extra(host: Host) -> str:
    """Lisp for Emacs on ``host``: start the server of ``host``."""
    command = " ".join(lisp_string(part) for part in host.server_command())
    return f"(setq agent-doc-server-command (list {command}))\n"


def project_sync(host: Host, sync: str) -> None:
    """Point the host's checkout at the sync server (``.agent-doc/config.toml``)."""
    config = host.checkout / ".agent-doc" / "config.toml"
    config.write_text(
        f"sync = {json.dumps(sync)}\nsync_token_file = {json.dumps(str(host.token_file))}\n",
        "utf-8",
    )


# -- reading the editors ---------------------------------------------------

NVIM_STATE = (
    "local c = vim.api.nvim_win_get_cursor(0) "
    "local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) "
    "return { text = table.concat(lines, '\\n') .. '\\n', "
    "before = string.sub(lines[c[1]], 1, c[2]), "
    "mode = vim.api.nvim_get_mode().mode }"
)


def neovim_state(editor: Nvim) -> dict[str, str]:
    """Neovim's buffer text and its cursor line up to the cursor."""
    return dict(editor.lua(NVIM_STATE))


def emacs_state(emacs: Emacs, doc: Path) -> dict[str, str]:
    """Emacs's buffer text and its window-point line up to point."""
    form = (
        f"(with-current-buffer (get-file-buffer {lisp_string(doc)}) "
        "(let ((p (window-point (get-buffer-window)))) "
        "(json-encode (list (cons 'text (buffer-substring-no-properties "
        "(point-min) (point-max))) (cons 'before (save-excursion (goto-char p) "
        "(buffer-substring-no-properties (line-beginning-position) p)))))))"
    )
    return dict(emacs.json(form))


def emacs_goto(emacs: Emacs, doc: Path, line_text: str, at_end: bool) -> None:
    """Put Emacs's point at the start or end of the line ``line_text``."""
    edge = "(end-of-line)" if at_end else "(beginning-of-line)"
    emacs.eval(
        f"(with-selected-window (get-buffer-window (get-file-buffer {lisp_string(doc)})) "
        f"(goto-char (point-min)) (search-forward {lisp_string(line_text)}) {edge} t)"
    )


# -- typing ----------------------------------------------------------------


def type_at_pace(tmux: PrivateTmux, pane: str, text: str, rng: random.Random) -> None:
    """Send ``text`` to ``pane`` one key at a time, 60–120 ms apart."""
    for ch in text:
        time.sleep(rng.uniform(0.06, 0.12))  # the person's pace, not a wait
        tmux.run("send-keys", "-t", pane, "-l", ch)


# -- the room --------------------------------------------------------------


def room_text(url: str, token: str) -> str:
    """The room's text, as a new pycrdt peer receives it."""

    async def read() -> str:
        async with peer(url, token) as joined:
            return str(joined.text)

    return anyio.run(read)


def stored_text(db: Path, session: str) -> str:
    """The room's text in the server's SQLite store (the server has stopped)."""
    from pycrdt import Doc
    from pycrdt import Text
    from pycrdt.store import SQLiteYStore

    from agent_doc.document.yrs_codec import TEXT_KEY

    async def read() -> str:
        doc: Doc[Any] = Doc()
        store = SQLiteYStore(session)
        store.db_path = str(db)
        async with anyio.create_task_group() as tg:
            await tg.start(store.start)
            await store.apply_updates(doc)
            await store.stop()
        return str(doc.get(TEXT_KEY, type=Text))

    return anyio.run(read)


def remote_write(
    host: Host, doc: str, url: str, answer: str
) -> subprocess.CompletedProcess[str]:
    """``agent-doc write DOC --room URL`` run on ``host`` (its own files only)."""
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "write", doc,
         "--room", url, "--token-file", str(host.token_file)],
        cwd=host.checkout, input=answer, capture_output=True, text=True,
        timeout=40, env={**_base_env(), **host.env()},
    )  # fmt: skip


def _base_env() -> dict[str, str]:
    import os

    return dict(os.environ)
