"""Issue 15: Emacs (agent-doc.el + eglot) running inside a tmux pane.

``emacs --batch`` runs a driver in a pane of a private tmux server, so
``$TMUX_PANE`` is Emacs's own pane. The driver claims ``right`` as a person
would with ``C-c a c right``, then — with an agent that exits at once
(tests/data/exit_agent.py) — syncs two windows of session documents.
It writes ``*Messages*`` to a file; the test reads that, tmux and
``sessions.json``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.tmux import registry
from tests.editors.harness import EDITORS
from tests.editors.harness import PrivateTmux
from tests.editors.harness import private_tmux
from tests.editors.harness import session_doc
from tests.editors.harness import wait_for
from tests.private_tmux import AGENT_COMMAND

pytestmark = [pytest.mark.editor, pytest.mark.tmux]

EXIT_AGENT = Path(__file__).resolve().parents[1] / "data" / "exit_agent.py"

DRIVER = r"""
(require 'package)
(package-initialize)
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp"))
(setq agent-doc-auto-sync nil)
(setq eglot-sync-connect 30)
(agent-doc-setup)
(defun drv-wait (pred secs)
  (let ((deadline (+ (float-time) secs)))
    (while (and (< (float-time) deadline) (not (funcall pred)))
      (accept-process-output nil 0.05))))
(defun drv-failed ()
  (and (file-directory-p {starting})
       (directory-files {starting} nil "\\.failed\\'")))
(defun drv-out ()
  (with-current-buffer "*Messages*"
    (let ((coding-system-for-write 'utf-8))
      (write-region (point-min) (point-max) {out}))))
(condition-case err
    (progn
      (find-file {doc})
      (apply #'eglot (eglot--guess-contact))
      (drv-wait (lambda () (and (eglot-current-server)
                                (eglot--server-capable :executeCommandProvider))) 30)
      (agent-doc-claim "right")
      (drv-wait (lambda () (file-exists-p {sessions})) 30)
      (drv-wait (lambda () (string-match-p "Claimed" (with-current-buffer "*Messages*" (buffer-string)))) 5)
      (with-temp-file {config} (insert {exit_config}))
      (split-window-right)
      (other-window 1)
      (find-file {other})
      (drv-wait (lambda () (eglot-current-server)) 30)
      ;; a sync notes the quick exit of the agent the one before started;
      ;; tmux may miss an exit's status (then it is restarted): sync again,
      ;; up to 6 times, until one is noted, then once more (no restart)
      (dotimes (_ 6)
        (unless (drv-failed)
          (agent-doc-sync)
          (drv-wait (lambda () (not agent-doc--sync-inflight)) 30)
          (drv-wait #'drv-failed 2)))
      (agent-doc-sync)
      (drv-wait (lambda () (not agent-doc--sync-inflight)) 30)
      (message "driver: done")
      (drv-out)
      (kill-emacs 0))
  (error (message "driver error: %S" err) (drv-out) (kill-emacs 3)))
"""


@pytest.fixture
def tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[PrivateTmux]:
    """A private tmux server."""
    with private_tmux(monkeypatch) as server:
        yield server


def _lisp(value: str | Path) -> str:
    return json.dumps(str(value))


def _emacs() -> str:
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
    return emacs


@pytest.mark.timeout(180)
def test_emacs_claim_and_sync_inside_tmux(
    tmux: PrivateTmux, tmp_path: Path, project: Path
) -> None:
    """claim bound Emacs's pane; sync failed with `KeyError: '%9'`."""
    emacs = _emacs()
    doc = session_doc(project, "d.md")
    other = session_doc(project, "o.md")
    config = project / ".agent-doc" / "config.toml"
    config.write_text(f"agent_command = {json.dumps(AGENT_COMMAND)}\n", "utf-8")
    out = tmp_path / "messages.txt"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
            doc=_lisp(doc),
            other=_lisp(other),
            sessions=_lisp(registry.registry_path(project)),
            starting=_lisp(project / ".agent-doc" / "starting"),
            config=_lisp(config),
            exit_config=_lisp(
                f"agent_command = {json.dumps(f'{sys.executable} {EXIT_AGENT}')}\n"
            ),
            out=_lisp(out),
        ),
        "utf-8",
    )
    argv = [emacs, "--batch", "--no-init-file", "-l", str(driver)]
    command = f"exec env -u AGENT_DOC_AGENT_COMMAND {shlex.join(argv)}"
    editor = tmux.run(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(project), command
    ).strip()
    wait_for(out.exists, 120, "the Emacs driver to finish")
    messages = out.read_text("utf-8", "replace")
    assert "driver: done" in messages, messages
    bound = {e.file: e.pane for e in registry.load(project).entries.values()}
    assert bound["d.md"] != editor
    agent = [p for p in tmux.panes() if p["pane"] == bound["d.md"]]
    assert agent
    assert agent[0]["dead"] == "0"  # the fake agent, split off Emacs
    assert "sync failed" not in messages, messages
    assert "KeyError" not in messages
    quick = [p for p in tmux.panes() if p["pane"] == bound.get("o.md")]
    assert not quick or quick[0]["dead"] == "1", "o.md's agent exited at once"
    failed = list((project / ".agent-doc" / "starting").glob("*.failed"))
    assert len(failed) == 1, "sync ran, saw the quick exit and did not retry"
    assert "exited at once" in failed[0].read_text("utf-8")
