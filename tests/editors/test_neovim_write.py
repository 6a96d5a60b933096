"""A real editor: ``agent-doc write`` lands in headless Neovim's *buffer*.

Neovim 0.11 runs ``agent-doc-lsp`` through a minimal ``vim.lsp.start`` (no
plugin), the buffer holds unsaved text, the CLI runs in a subprocess, and the
buffer is read back over Neovim's RPC socket (``--remote-expr``). Neovim answers
``applied=true`` even when it skips a stale edit, so this also exercises the
server's verification.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import Nvim
from tests.editors.harness import agent_doc
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:exchange -->\nFirst question?\n<!-- /agent:exchange -->\n"
)
RESPONSE = "<!-- patch:exchange -->\nThe answer is 42.\n<!-- /patch:exchange -->\n"

INIT = """
vim.api.nvim_create_autocmd("FileType", {{
  pattern = "markdown",
  callback = function(ev)
    vim.lsp.start({{
      name = "agent-doc",
      cmd = {{ {python}, "-m", "agent_doc_lsp" }},
      root_dir = {root},
      flags = {{ debounce_text_changes = {debounce} }},
    }}, {{ bufnr = ev.buf }})
  end,
}})
"""


@pytest.fixture
def nvim(request: pytest.FixtureRequest, tmp_path: Path, project: Path):
    binary = find_nvim()
    if binary is None:
        pytest.skip("nvim is not installed")
    init = tmp_path / "init.lua"
    init.write_text(
        INIT.format(
            python=lua_string(sys.executable),
            root=lua_string(str(project)),
            debounce=getattr(request, "param", 150),
        )
    )
    address = tmp_path / "nvim.sock"
    editor = Nvim(binary, address, project, tmp_path / "nvim.log")
    doc = project / "doc.md"
    doc.write_text(DOC)
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


def buffer_text(nvim: Nvim) -> str:
    return nvim.lua(
        'return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")'
    )


def test_cli_write_lands_in_the_neovim_buffer_after_unsaved_text(nvim, project):
    doc = project / "doc.md"
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 20, "server")
    attached = "return #vim.lsp.get_clients({ bufnr = 0 })"
    wait_for(lambda: nvim.lua(attached) == 1, 10, "LSP client attached")
    # the user types a prompt (unsaved) at the end of the exchange
    nvim.lua(
        "local n = vim.fn.search('^<!-- /agent:exchange -->$') - 1 "
        "vim.api.nvim_buf_set_lines(0, n, n, false, {'Unsaved prompt'}) return true"
    )
    link = ServerLink()

    def server_sees_prompt() -> bool:
        owner = link.find_owner(doc)
        return owner is not None and "Unsaved prompt" in owner.text

    wait_for(server_sees_prompt, 10, "didChange with the unsaved prompt")
    result = agent_doc("write", str(doc), cwd=project, stdin=RESPONSE)
    assert result.returncode == 0, result.stderr
    text = buffer_text(nvim)
    assert text.index("Unsaved prompt") < text.index("The answer is 42.")
    assert text.count("The answer is 42.") == 1
    assert doc.read_text() == DOC  # the buffer changed, not the file
    assert nvim.lua("return vim.bo.modified") is True


@pytest.mark.parametrize("nvim", [2500], indirect=True, ids=["debounce-2.5s"])
def test_neovim_skipping_a_stale_edit_is_detected_and_retried(nvim, project):
    doc = project / "doc.md"
    servers = project / ".agent-doc" / "servers"
    wait_for(lambda: servers.is_dir() and any(servers.glob("*.json")), 20, "server")
    wait_for(lambda: nvim.lua("return #vim.lsp.get_clients({ bufnr = 0 })") == 1, 10,
             "LSP client attached")  # fmt: skip
    # Neovim checks versions only above 0 (its didOpen version): edit once first.
    nvim.lua("vim.api.nvim_buf_set_lines(0, 4, 4, false, {'intro'}) return true")
    link = ServerLink()

    def server_version() -> int:
        owner = link.find_owner(doc)
        return owner.version if owner is not None and owner.version else 0

    wait_for(lambda: server_version() > 0, 10, "first didChange")
    # Neovim holds the next change for 2.5 s (debounce): the server's first edit is
    # pinned to a version Neovim already left, and Neovim skips it while
    # answering applied=true.
    nvim.lua(
        "vim.api.nvim_buf_set_lines(0, -1, -1, false, {'tail typed by the user'}) "
        "return true"
    )
    result = agent_doc("write", str(doc), cwd=project, stdin=RESPONSE)
    assert result.returncode == 0, result.stderr
    messages = nvim.lua("return vim.api.nvim_exec2('messages', {output=true}).output")
    assert "newer than edits" in messages  # Neovim did skip an attempt
    text = buffer_text(nvim)
    assert text.count("The answer is 42.") == 1
    assert text.endswith("tail typed by the user")
    assert doc.read_text() == DOC
