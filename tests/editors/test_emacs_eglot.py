"""Emacs + eglot (editors/emacs/agent-doc.el) in ``emacs --batch``.

Emacs opens a session document, eglot starts the real ``agent-doc-lsp``, the
buffer gets an unsaved edit (sent as ``didChange``), then ``agent-doc write``
runs from a subprocess and the agent's patch must land in the *buffer* after
the user's text, with the file on disk unchanged. Emacs waits for the change
with an ``accept-process-output`` loop bounded by a deadline and writes the
buffer text to a file the test reads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import EDITORS
from tests.editors.harness import agent_doc
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for

pytestmark = pytest.mark.editor

RESPONSE = "<!-- patch:exchange -->\nThe agent answers.\n<!-- /patch:exchange -->\n"

DRIVER = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp" "--log-level" "info" "--log-file" {srvlog}))
(setq agent-doc-auto-sync nil)
(setq eglot-sync-connect 30)
(agent-doc-setup)
(defun drv-write (file text) (let ((coding-system-for-write 'utf-8)) (write-region text nil file)))
(condition-case err
    (progn
      (find-file {doc})
      (unless (eq major-mode (agent-doc--markdown-mode)) (error "wrong mode %s" major-mode))
      (apply #'eglot (eglot--guess-contact))
      (let ((deadline (+ (float-time) 30)))
        (while (and (< (float-time) deadline)
                    (not (and (eglot-current-server)
                              (eglot--server-capable :executeCommandProvider))))
          (accept-process-output nil 0.05)))
      (goto-char (point-min))
      (search-forward "<!-- /agent:exchange -->")
      (beginning-of-line)
      (insert "Unsaved follow-up.\n")
      (eglot--signal-textDocument/didChange)
      (drv-write {ready} (format "%s" (buffer-modified-p)))
      (let ((deadline (+ (float-time) 40)))
        (while (and (< (float-time) deadline)
                    (not (string-match-p "The agent answers" (buffer-string))))
          (accept-process-output nil 0.05)))
      ;; Interactive Emacs sends didChange from an idle timer; batch has no
      ;; idle time, so send it now (the server verifies its edit with it).
      (eglot--signal-textDocument/didChange)
      (drv-write {out} (buffer-substring-no-properties (point-min) (point-max)))
      (drv-write {modified} (format "%s" (buffer-modified-p)))
      ;; Keep the server alive until `agent-doc write' has its reply.
      (let ((deadline (+ (float-time) 40)))
        (while (and (< (float-time) deadline) (not (file-exists-p {done})))
          (accept-process-output nil 0.05)))
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (kill-emacs 0))
  (error (drv-write {out} (format "ERROR: %S" err)) (kill-emacs 3)))
"""


def _live_text(link: ServerLink, doc: Path) -> str:
    owner = link.find_owner(doc)
    return owner.text if owner else ""


def _lisp(value: str | Path) -> str:
    return json.dumps(str(value))


@pytest.mark.timeout(180)
def test_agent_patch_lands_in_unsaved_emacs_buffer(
    tmp_path: Path, project: Path
) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    probe = subprocess.run(
        [emacs, "--batch", "--eval", "(progn (package-initialize) (require 'eglot))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        pytest.skip(f"eglot is not available: {probe.stderr.strip()[-200:]}")
    doc = session_doc(project, "doc.md", body="What is 2+2?\n")
    on_disk = doc.read_text("utf-8")
    ready, out, modified = tmp_path / "ready", tmp_path / "out.txt", tmp_path / "mod"
    done = tmp_path / "done"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
            doc=_lisp(doc),
            ready=_lisp(ready),
            out=_lisp(out),
            modified=_lisp(modified),
            done=_lisp(done),
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
        wait_for(
            lambda: ready.exists() or proc.poll() is not None, 60, "eglot connected"
        )
        assert ready.exists(), (tmp_path / "emacs.log").read_text("utf-8", "replace")
        assert ready.read_text("utf-8") == "t", "the buffer should be modified"
        res = agent_doc(
            "write", "doc.md", "--origin", "test", cwd=project, stdin=RESPONSE
        )
        done.write_text("done", "utf-8")
        assert res.returncode == 0, res.stderr
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
    text = out.read_text("utf-8")
    assert "The agent answers." in text, text + (tmp_path / "emacs.log").read_text(
        "utf-8", "replace"
    )
    assert text.index("What is 2+2?") < text.index("The agent answers.")
    # The unsaved text is the user's latest turn: the response follows it.
    assert text.index("Unsaved follow-up.") < text.index("The agent answers.")
    assert modified.read_text("utf-8") == "t"
    assert doc.read_text("utf-8") == on_disk, "the file on disk must not change"
    assert proc.returncode == 0
