"""Benchmark making a streamed ACP answer one undo step in Neovim and Emacs.

The client side of ``agentDoc/answerLanded`` (``editors/neovim/lua/agent_doc/
answer_undo.lua``, ``editors/emacs/agent-doc-acp.el``) in a real headless
Neovim and a real batch Emacs, without a server: a session document of 10 KB,
100 KB and 1 MB; an answer of 14 streamed edits (3 lines each) below the
person's question while they type a word at the end of the document before
each edit; the ``resume`` line; then the notification with the edits that take
the answer out. Reported: the median time of the whole handler (history
rebuilt: back to the pre-stream state, the typing as one step, the answer as
one step) over 5 runs, and a check that one undo then leaves exactly the
document without the answer. The person waits for nothing: the handler runs
between two keystrokes.

Run: ``.venv/bin/python bench/bench_answer_undo.py``
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._fixtures import session_document

ROOT = Path(__file__).resolve().parents[1]
SIZES = [10_000, 100_000, 1_000_000]
RUNS = 5
EDITS = 14
LINES_PER_EDIT = 3

NVIM = r"""
vim.opt.rtp:prepend(PLUGIN)
local au = require("agent_doc.answer_undo")
local api = vim.api
local function brk() vim.cmd("let &undolevels = &undolevels") end
local doc = vim.fn.readfile(DOC)
local times, exact = {}, true
for run = 1, RUNS do
  vim.cmd("enew!")
  local buf = api.nvim_get_current_buf()
  api.nvim_buf_set_name(buf, DOC .. "." .. run .. ".md")
  vim.bo[buf].undolevels = 10000
  api.nvim_buf_set_lines(buf, 0, -1, false, doc)
  brk()
  local q = #doc - 1 -- answer goes above the closing marker (0-based line)
  api.nvim_buf_set_lines(buf, -1, -1, false, { "Notes:" })
  brk()
  for k = 1, EDITS do
    local last = api.nvim_buf_line_count(buf) - 1
    local len = #api.nvim_buf_get_lines(buf, last, last + 1, false)[1]
    api.nvim_buf_set_text(buf, last, len, last, len, { " w" .. k })
    brk()
    au.before_streamed_edit(buf, "s" .. run)
    local lines = {}
    for i = 1, LINES_PER_EDIT do lines[i] = ("answer %d line %d"):format(k, i) end
    local at = q + (k - 1) * LINES_PER_EDIT
    api.nvim_buf_set_lines(buf, at, at, false, lines)
    brk()
  end
  api.nvim_buf_set_lines(buf, 3, 3, false, { "resume: acp-1" })
  brk()
  local final = api.nvim_buf_get_lines(buf, 0, -1, false)
  local function range(a, b)
    return { start = { line = a, character = 0 }, ["end"] = { line = b, character = 0 } }
  end
  local n = EDITS * LINES_PER_EDIT
  local params = {
    uri = vim.uri_from_bufnr(buf), version = vim.lsp.util.buf_versions[buf], stream = "s" .. run,
    withoutAnswer = { { range = range(3, 4), newText = "" }, { range = range(q + 1, q + 1 + n), newText = "" } },
  }
  local started = vim.uv.hrtime()
  au.handler(nil, params, { client_id = -1 })
  times[#times + 1] = (vim.uv.hrtime() - started) / 1e6
  local same = table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), "\n") == table.concat(final, "\n")
  vim.cmd("silent undo")
  local once = api.nvim_buf_get_lines(buf, 0, -1, false)
  exact = exact and same and #once == #final - n - 1 and once[#once]:find("w" .. EDITS, 1, true) ~= nil
    and not table.concat(once, "\n"):find("answer 1 line 1", 1, true)
end
table.sort(times)
io.stdout:write(vim.json.encode({ ms = times[math.ceil(#times / 2)], exact = exact }))
"""

EMACS = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path EMACS-DIR)
(require 'agent-doc)
(defun brk () (undo-boundary))
(defun line-pos (n) (save-excursion (goto-char (point-min)) (forward-line n) (point)))
(let ((times nil) (exact t))
  (dotimes (run RUNS)
    (let ((file (format "%s.%d.md" DOC run)))
      (copy-file DOC file t)
      (with-current-buffer (find-file-noselect file)
        (buffer-enable-undo)
        (setq eglot--versioned-identifier 7)
        (let* ((q (1- (count-lines (point-min) (point-max))))
               (stream (format "s%d" run)) (n (* EDITS LINES-PER-EDIT)))
          (goto-char (point-max)) (insert "Notes:") (brk)
          (dotimes (k EDITS)
            (goto-char (point-max)) (insert (format " w%d" (1+ k))) (brk)
            (let ((agent-doc-acp--stream stream)) (agent-doc-acp-before-edit nil))
            (goto-char (line-pos (+ q (* k LINES-PER-EDIT))))
            (dotimes (i LINES-PER-EDIT) (insert (format "answer %d line %d\n" (1+ k) (1+ i))))
            (brk))
          (goto-char (line-pos 3)) (insert "resume: acp-1\n") (brk)
          (let* ((final (buffer-string))
                 (range (lambda (a b) (list :start (list :line a :character 0)
                                            :end (list :line b :character 0))))
                 (started (float-time)))
            (eglot-handle-notification
             nil 'agentDoc/answerLanded :uri (eglot--path-to-uri file) :version 7 :stream stream
             :withoutAnswer (vector (list :range (funcall range 3 4) :newText "")
                                    (list :range (funcall range (1+ q) (+ 1 q n)) :newText "")))
            (push (* 1000 (- (float-time) started)) times)
            (let ((same (equal (buffer-string) final)))
              (let ((last-command nil)) (undo))
              (setq exact (and exact same (plist-get agent-doc-acp-last-landed :one-undo-step)
                               (not (string-match-p "answer 1 line 1" (buffer-string)))
                               (string-match-p (format "w%d\\'" EDITS) (buffer-string))
                               (not (string-match-p "resume: acp-1" (buffer-string))))))))
        (set-buffer-modified-p nil)
        (kill-buffer))))
  (setq times (sort times #'<))
  (princ (json-encode (list :ms (nth (/ (length times) 2) times) :exact (if exact t :json-false)))))
"""


def _subst(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(key, value)
    return template


def neovim(doc: Path) -> dict[str, object] | None:
    """Median handler time in headless Neovim (or None without nvim)."""
    local = Path(sys.executable).parent / "nvim"
    nvim = str(local) if local.exists() else shutil.which("nvim")
    if nvim is None:
        return None
    script = doc.with_suffix(".lua")
    script.write_text(
        _subst(
            NVIM,
            {
                "PLUGIN": json.dumps(str(ROOT / "editors" / "neovim")),
                "DOC": json.dumps(str(doc)),
                "RUNS": str(RUNS),
                "EDITS": str(EDITS),
                "LINES_PER_EDIT": str(LINES_PER_EDIT),
            },
        )
    )
    out = subprocess.run(
        [nvim, "--clean", "--headless", "-l", str(script)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return dict(json.loads(out.stdout or out.stderr))


def emacs(doc: Path) -> dict[str, object] | None:
    """Median handler time in batch Emacs + eglot (or None without emacs)."""
    if shutil.which("emacs") is None:
        return None
    script = doc.with_suffix(".el")
    script.write_text(
        _subst(
            EMACS,
            {
                "EMACS-DIR": json.dumps(str(ROOT / "editors" / "emacs")),
                "LINES-PER-EDIT": str(LINES_PER_EDIT),
                "DOC": json.dumps(str(doc)),
                "RUNS": str(RUNS),
                "EDITS": str(EDITS),
            },
        )
    )
    out = subprocess.run(
        ["emacs", "--batch", "--no-init-file", "-l", str(script)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return dict(json.loads(out.stdout))


def main() -> None:
    """Print one row per editor and document size."""
    print(
        "| editor | document | answer | handler (median of 5) | one undo = the answer |"
    )
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            doc = Path(tmp) / f"doc{size}.md"
            doc.write_text(session_document(size), "utf-8")
            for name, run in (("Neovim", neovim), ("Emacs", emacs)):
                row = run(doc)
                if row is None:
                    print(f"| {name} | {size // 1000} KB | - | not installed | - |")
                    continue
                print(
                    f"| {name} | {size // 1000} KB | {EDITS} edits | "
                    f"{float(row['ms']):.1f} ms | {row['exact']} |"  # type: ignore[arg-type]
                )
    print(
        f"\nAn answer of {EDITS} streamed edits ({LINES_PER_EDIT} lines each) while a"
        " word is typed at the end before each edit, then agentDoc/answerLanded"
        " handled by the plugin (no server)."
    )


if __name__ == "__main__":
    main()
