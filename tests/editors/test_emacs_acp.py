"""Emacs + eglot: an ACP agent's answer streams into the buffer while a person types.

``emacs --batch`` opens a session document with ``editors/emacs/agent-doc.el``,
asks ``agentDoc.runAgent`` asynchronously over eglot's connection and inserts a
note key by key at point, pausing between words, while the stand-in ACP agent
streams. eglot sends ``didChange`` only after 0.5 s idle (emulated: batch Emacs
is never idle) and rejects edits pinned to a stale version, so streamed edits
made while the person types are refused and the next step catches up.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.editors.harness import EDITORS
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

REPLY = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(60)) + "\n\nIt is 4."
TYPED = "my note typed key by key"

DRIVER = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp" "--log-level" "debug" "--log-file" {srvlog}))
(setq agent-doc-auto-sync nil)
(setq eglot-sync-connect 30)
(agent-doc-setup)
(defun drv-write (file text) (let ((coding-system-for-write 'utf-8)) (write-region text nil file)))
(defvar drv-last-key 0.0)
(defun drv-tick ()
  ;; Interactive eglot sends didChange after 0.5 s idle; batch Emacs is never
  ;; idle, so do what its idle timer would do.
  (when (> (- (float-time) drv-last-key) 0.5)
    (eglot--signal-textDocument/didChange)))
(defun drv-wait (pred secs)
  (let ((deadline (+ (float-time) secs)))
    (while (and (< (float-time) deadline) (not (funcall pred)))
      (drv-tick)
      (accept-process-output nil 0.03))))
(defun drv-pause (secs)
  (let ((until (+ (float-time) secs)))
    (while (< (float-time) until)
      (drv-tick)
      (accept-process-output nil 0.03))))
(condition-case err
    (let ((result nil) (sizes nil))
      (find-file {doc})
      (apply #'eglot (eglot--guess-contact))
      (drv-wait (lambda () (and (eglot-current-server)
                                (eglot--server-capable :executeCommandProvider))) 30)
      (goto-char (point-max))
      (jsonrpc-async-request
       (eglot-current-server) :workspace/executeCommand
       (list :command "agentDoc.runAgent"
             :arguments (vector (list :uri (eglot--path-to-uri {doc}))))
       :success-fn (lambda (r) (setq result r))
       :error-fn (lambda (e) (setq result (list :error (format "%S" e))))
       :timeout 120)
      (drv-wait (lambda () (string-match-p "### Re: sum" (buffer-string))) 60)
      (dolist (ch (string-to-list {typed}))
        (insert (char-to-string ch))
        (setq drv-last-key (float-time))
        (push (length (buffer-string)) sizes)
        (if (eq ch ?\s)
            (drv-pause 0.7)  ; a person pauses between words
          (accept-process-output nil 0.04)))
      (drv-wait (lambda () result) 90)
      (drv-write {out} (buffer-substring-no-properties (point-min) (point-max)))
      (drv-write {info} (json-encode (list :result result
                                           :line (buffer-substring-no-properties
                                                  (line-beginning-position) (point))
                                           :eol (eolp)
                                           :sizes (vconcat sizes))))
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (kill-emacs 0))
  (error (drv-write {out} (format "ERROR: %S" err)) (kill-emacs 3)))
"""


def _lisp(value: str | Path) -> str:
    return json.dumps(str(value))


@pytest.mark.timeout(240)
def test_answer_streams_into_emacs_while_the_person_types(
    tmp_path: Path, project: Path
) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    configure_standin(
        tmp_path,
        {"ACP_AGENT_REPLY": REPLY, "ACP_AGENT_CHUNK": "4", "ACP_AGENT_DELAY": "0.05"},
    )
    doc = project / "plan.md"
    doc.write_text(DOC)
    out, info = tmp_path / "out.txt", tmp_path / "info.json"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
            doc=_lisp(doc),
            typed=_lisp(TYPED),
            out=_lisp(out),
            info=_lisp(info),
            srvlog=_lisp(tmp_path / "server.log"),
        ),
        "utf-8",
    )
    log = (tmp_path / "emacs.log").open("w")
    proc = subprocess.Popen(
        [emacs, "--batch", "--no-init-file", "-l", str(driver)],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(lambda: proc.poll() is not None, 200, "emacs driver")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
    text = out.read_text("utf-8")
    assert proc.returncode == 0, text + (tmp_path / "emacs.log").read_text("utf-8")
    details = json.loads(info.read_text("utf-8"))
    result = details["result"]
    assert "error" not in result, result
    assert result["target"] == "server"
    assert result["edits"] >= 2
    assert text.endswith("Notes:\n" + TYPED)  # 0 characters lost, in order
    assert text.count(REPLY) == 1
    assert text.index("What is 2 + 2?") < text.index("### Re: sum")
    assert text.index("It is 4.") < text.index("<!-- /agent:exchange -->")
    assert f"resume: {result['sessionId']}" in text
    assert details["line"] == TYPED  # point stayed after the person's last key
    assert details["eol"] is True
    sizes = details["sizes"][::-1]
    grew = [b - a for a, b in zip(sizes, sizes[1:], strict=False)]
    assert any(step > 1 for step in grew)  # the answer grew while they typed
    assert doc.read_text("utf-8") == DOC
