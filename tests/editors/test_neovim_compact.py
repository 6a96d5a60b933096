"""A real editor: ``agent-doc compact`` on a document open in headless Neovim.

Neovim runs ``agent-doc-lsp`` (as in :mod:`tests.editors.test_neovim_write`),
the person has typed below the turns to compact without saving, and the CLI
runs in a subprocess. The older turns leave the *buffer* in one edit (one
``u`` brings them back), the typing stays, and the file is not written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
from agent_doc.write.server_link import ServerLink
from tests.editors.harness import Nvim
from tests.editors.harness import agent_doc
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for
from tests.editors.test_neovim_write import INIT
from tests.editors.test_neovim_write import buffer_text

pytestmark = pytest.mark.editor

TURNS = "".join(
    f"### Re: question {i}\n\nAnswer {i}.\n\nQuestion {i + 1}?\n" for i in range(1, 13)
)
DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:exchange patch=append -->\n## User\n\nQuestion 1?\n"
    f"{TURNS}<!-- /agent:exchange -->\n"
)
LINK = "*[9 earlier turns archived in doc.archive.md](doc.archive.md)*"


@pytest.fixture
def nvim(tmp_path: Path, project: Path):
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed")
    init = tmp_path / "init.lua"
    init.write_text(
        INIT.format(
            python=lua_string(sys.executable),
            root=lua_string(str(project)),
            debounce=150,
        )
    )
    address = tmp_path / "nvim.sock"
    editor = Nvim(binary, address, project, tmp_path / "nvim.log")
    doc = project / "doc.md"
    doc.write_text(DOC)
    StateStore(project).save_snapshot(doc, DOC)  # the agent saw all of it
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


def test_compact_in_neovim_is_one_undoable_edit_keeping_unsaved_typing(nvim, project):
    doc = project / "doc.md"
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 20, "server")
    attached = "return #vim.lsp.get_clients({ bufnr = 0 })"
    wait_for(lambda: nvim.lua(attached) == 1, 10, "LSP client attached")
    nvim.lua(
        "local n = vim.fn.search('^<!-- /agent:exchange -->$') - 1 "
        "vim.api.nvim_buf_set_lines(0, n, n, false, {'Typed below, unsaved'}) "
        "return true"
    )
    link = ServerLink()

    def server_sees_typing() -> bool:
        owner = link.find_owner(doc)
        return owner is not None and "Typed below, unsaved" in owner.text

    wait_for(server_sees_typing, 10, "didChange with the typing")
    typed = buffer_text(nvim)
    result = agent_doc("compact", str(doc), "--keep", "3", "--no-git", cwd=project)
    assert result.returncode == 0, result.stderr
    text = buffer_text(nvim)
    assert text.count(LINK) == 1
    assert "### Re: question 9\n" not in text
    assert text.index(LINK) < text.index("### Re: question 10")
    assert text.endswith("Question 13?\nTyped below, unsaved\n<!-- /agent:exchange -->")
    assert doc.read_text() == DOC  # the buffer changed, not the file
    assert "### Re: question 9\n" in (project / "doc.archive.md").read_text()
    nvim.lua("vim.cmd('undo') return true")  # one undo: all turns back
    assert buffer_text(nvim) == typed
