"""Presence in Emacs: agent-doc-share.el shows a peer's cursor and sends its own.

A real ``agent-doc serve`` and a second editor's peer in its own process
(:mod:`tests.share.peer_process`, "bob", cursor on the heading), then real
Emacs (``emacs -Q --batch``, eglot from Debian's ``elpa-eglot``) opening the
shared document with the project's ``sync``: its mode line says
``shared · 1 peer``, bob's cursor is drawn where bob put it with his name at
the end of the line, and Emacs's point reaches bob as ``agentDoc/cursor``.
Batch Emacs has no command loop: the driver runs ``post-command-hook`` as the
loop does after a command.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.harness import EDITORS
from tests.editors.test_neovim_presence import HEADING
from tests.editors.test_neovim_presence import BobProcess
from tests.share.rooms import ServeProcess
from tests.share.rooms import serving

pytestmark = [pytest.mark.editor, pytest.mark.timeout(120)]

ELPA = Path("/usr/share/emacs/site-lisp/elpa")

DRIVER = r"""
(setq load-path (append (list {load_dirs}) load-path))
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(agent-doc-setup)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp"))
(setq agent-doc-auto-sync nil eglot-sync-connect 30)
(defvar drv-out nil)
(defun drv-put (key value) (push (cons key value) drv-out))
(defun drv-wait (pred seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (< (float-time) deadline) (not (funcall pred)))
      (accept-process-output nil 0.05))))
(condition-case err
    (progn
      (find-file {doc})
      (run-hooks 'post-command-hook)
      (drv-wait (lambda () (equal (agent-doc-share-label) "shared · 1 peer")) 40)
      (drv-wait (lambda () agent-doc-share--overlays) 20)
      (drv-put "label" (agent-doc-share-label))
      (drv-put "mode-line" (agent-doc-mode-line))
      (drv-put "marks"
               (vconcat
                (mapcar (lambda (o)
                         (vector (1- (line-number-at-pos (overlay-start o)))
                               (save-excursion (goto-char (overlay-start o)) (current-column))
                               (or (overlay-get o 'after-string) "")))
                       (sort (copy-sequence agent-doc-share--overlays)
                             (lambda (a b) (< (overlay-start a) (overlay-start b)))))))
      (goto-char (point-min))
      (forward-line {heading})
      (forward-char 4)
      (run-hooks 'post-command-hook)  ; as after a motion command
      (drv-wait (lambda () nil) 0.5)  ; let the notification go out
      (with-temp-file {out} (insert (json-encode drv-out)))
      (kill-emacs 0))
  (error (with-temp-file {out} (insert (json-encode (list (cons "error" (format "%S" err))))))
         (kill-emacs 3)))
"""


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        config = project / ".agent-doc" / "config.toml"
        config.parent.mkdir(exist_ok=True)
        config.write_text(f'sync = "{server.url}"\n', "utf-8")
        yield server


def test_emacs_shows_a_peers_cursor_and_sends_its_own(
    served: ServeProcess, tmp_path: Path
) -> None:
    emacs = shutil.which("emacs")
    if emacs is None or not any(ELPA.glob("eglot-[0-9]*")):
        pytest.skip("needs emacs-nox and elpa-eglot (apt-get install)")
    dirs = [d for d in sorted(ELPA.iterdir()) if not d.name.startswith("markdown")]
    out = tmp_path / "out.json"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            load_dirs=" ".join(json.dumps(str(d)) for d in dirs),
            emacs_dir=json.dumps(str(EDITORS / "emacs")),
            python=json.dumps(sys.executable),
            doc=json.dumps(str(served.root / "pair.md")),
            heading=HEADING,
            out=json.dumps(str(out)),
        ),
        "utf-8",
    )
    bob = BobProcess(served)
    try:
        bob.move(HEADING, 2)
        proc = subprocess.run(
            [emacs, "-Q", "--batch", "-l", str(driver)],
            cwd=served.root,
            capture_output=True,
            text=True,
            timeout=90,
        )
        result = dict(json.loads(out.read_text()) if out.exists() else {})
        assert proc.returncode == 0, (result, proc.stderr[:2000])
        assert result["label"] == "shared · 1 peer"
        assert "[shared · 1 peer]" in result["mode-line"]
        assert result["marks"] == [
            [HEADING, 2, ""],
            [HEADING, len("# Pairing"), " bob"],
        ]
        bob.until(
            lambda r: any(
                p["kind"] == "editor"
                and p["cursor"] == {"line": HEADING, "character": 4}
                for p in r["presence"]
            ),
            "Emacs's point",
        )
    finally:
        bob.proc.kill()
        bob.proc.wait(timeout=10)
