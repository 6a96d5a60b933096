"""Issue 20 in real Emacs + eglot: unsent notes, sessions, turn diff and revert.

``emacs --batch`` loads editors/emacs (agent-doc.el pulls in agent-doc-state.el),
eglot starts the real ``agent-doc-lsp``. Before Emacs starts, one agent turn is
written and committed with the real CLI. The driver types a line, waits for
the server's Hint diagnostics to become Flymake notes, picks a session through
``completing-read``, shows a turn's diff and reverts the answer (then undoes
it), writing what it saw as JSON for the test to check. Batch Emacs has no
idle time, so the driver sends ``didChange`` itself after each buffer change.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.store.state import StateStore
from tests.editors.harness import EDITORS
from tests.editors.harness import agent_doc
from tests.editors.harness import session_doc

pytestmark = pytest.mark.editor

ANSWER = (
    "<!-- patch:exchange -->\n### Re: the plan\n\nShip it on Friday.\n"
    "<!-- /patch:exchange -->\n"
)

DRIVER = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(require 'json)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp"))
(setq agent-doc-auto-sync nil)
(setq eglot-sync-connect 30)
(agent-doc-setup)
(defvar drv-seen nil)
(defun drv-see (key value) (push (cons key value) drv-seen))
(defun drv-wait (pred secs what)
  (let ((deadline (+ (float-time) secs)))
    (while (and (< (float-time) deadline) (not (funcall pred)))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (error "timed out waiting for %s" what))))
(defun drv-notes ()
  (flymake-start)
  (accept-process-output nil 0.05)
  (mapcar (lambda (d) (vector (symbol-name (flymake-diagnostic-type d))
                            (flymake-diagnostic-text d)
                            (line-number-at-pos (flymake-diagnostic-beg d))))
          (flymake-diagnostics)))
(condition-case err
    (progn
      (find-file {doc})
      (apply #'eglot (eglot--guess-contact))
      (drv-wait (lambda () (and (eglot-current-server)
                                (eglot--server-capable :executeCommandProvider)))
                30 "eglot")
      (goto-char (point-min))
      (search-forward "<!-- /agent:exchange -->")
      (beginning-of-line)
      (insert "And the budget?\n")
      (eglot--signal-textDocument/didChange)
      (drv-wait (lambda () (cl-some (lambda (n) (string-match-p "unsent" (aref n 1)))
                                    (drv-notes)))
                20 "unsent note")
      (drv-see "notes" (vconcat (drv-notes)))
      (drv-see "note-face"
               (format "%s" (cl-some (lambda (o) (overlay-get o 'category))
                                     (overlays-at (line-beginning-position 0)))))
      ;; sessions through completing-read
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt rows &rest _)
                   (drv-see "sessions" (mapcar #'car rows))
                   (car (car (last rows))))))
        (agent-doc-sessions))
      (drv-see "opened" (file-name-nondirectory buffer-file-name))
      (switch-to-buffer (find-buffer-visiting {doc}))
      ;; diff of the turn at point
      (goto-char (point-min))
      (search-forward "Ship it on Friday.")
      (agent-doc-turn-diff)
      (drv-wait (lambda () (cl-some (lambda (b) (string-prefix-p "*agent-doc turn" (buffer-name b)))
                                    (buffer-list)))
                20 "turn diff buffer")
      (let ((b (cl-find-if (lambda (b) (string-prefix-p "*agent-doc turn" (buffer-name b)))
                           (buffer-list))))
        (drv-see "diff" (with-current-buffer b (buffer-string)))
        (drv-see "diff-mode" (format "%s" (buffer-local-value 'major-mode b))))
      ;; revert the turn at point, then undo it
      (switch-to-buffer (find-buffer-visiting {doc}))
      (goto-char (point-min))
      (search-forward "Ship it on Friday.")
      (undo-boundary)
      (agent-doc-revert-turn)
      (drv-wait (lambda ()
                  (eglot--signal-textDocument/didChange)
                  (not (string-match-p "Ship it on Friday" (buffer-string))))
                20 "answer removed")
      (eglot--signal-textDocument/didChange)
      (drv-see "after-revert" (buffer-substring-no-properties (point-min) (point-max)))
      (accept-process-output nil 0.5)
      (undo-boundary)
      (undo)
      (drv-see "after-undo" (buffer-substring-no-properties (point-min) (point-max)))
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (let ((coding-system-for-write 'utf-8))
        (write-region (json-encode drv-seen) nil {out}))
      (kill-emacs 0))
  (error (let ((coding-system-for-write 'utf-8))
           (write-region (format "ERROR: %S" err) nil {out}))
         (kill-emacs 3)))
"""


def _lisp(value: str | Path) -> str:
    return json.dumps(str(value))


@pytest.mark.timeout(240)
def test_emacs_shows_unsent_notes_sessions_turn_diff_and_revert(
    tmp_path: Path, project: Path
) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    doc = session_doc(project, "plan.md", body="What is the plan?\n")
    session_doc(project, "other.md", body="q\n")
    res = agent_doc("write", "plan.md", cwd=project, stdin=ANSWER)
    assert res.returncode == 0, res.stderr
    res = agent_doc("commit", "plan.md", cwd=project)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out.json"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
            doc=_lisp(doc),
            out=_lisp(out),
        ),
        "utf-8",
    )
    proc = subprocess.run(
        [emacs, "--batch", "--no-init-file", "-l", str(driver)],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=200,
    )
    text = out.read_text("utf-8") if out.exists() else ""
    assert proc.returncode == 0, f"{text}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    seen = dict(json.loads(text))
    notes = seen["notes"]
    unsent = [n for n in notes if "[unsent]" in n[1]]
    assert unsent == [["eglot-note", "agent-doc [unsent]: will be sent", unsent[0][2]]]
    lines = doc.read_text("utf-8").split("\n")
    assert unsent[0][2] == lines.index("<!-- /agent:exchange -->") + 1  # 1-based
    assert seen["note-face"] == "flymake-note"  # rendered as a Flymake note overlay
    sessions = seen["sessions"]
    assert [s.split("  ")[0] for s in sessions] == ["○ other.md", "○ plan.md"]
    assert "unsent 1" in sessions[1]
    assert "answered" in sessions[1]
    assert seen["opened"] == "plan.md"
    assert "+### Re: the plan (HEAD)" in seen["diff"]
    assert "+Ship it on Friday." in seen["diff"]
    assert seen["diff-mode"] == "diff-mode"
    assert "Ship it on Friday." not in seen["after-revert"]
    assert "And the budget?" in seen["after-revert"]
    assert "Ship it on Friday." in seen["after-undo"]
    assert "And the budget?" in seen["after-undo"]
    snapshot = StateStore.for_document(doc).load_snapshot(doc) or ""
    assert "Ship it on Friday." not in snapshot
