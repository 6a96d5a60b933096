"""Emacs attaches ``agent-doc-lsp`` on the first try, following the docs.

Real Emacs (``emacs -Q --batch``) with a load-path we control: eglot from
Debian ``elpa-eglot`` and, in one run, markdown-mode from Debian
``elpa-markdown-mode`` (its autoloads, as package.el would load them); in the
other run no markdown-mode at all. The init is exactly what
docs/editors/emacs.md says (plus the server command of this venv). Then:

- a plain ``.md`` file (no ``agent_doc_session``) starts no server;
- a session document starts eglot by itself, with ``agent-doc-lsp`` — not
  eglot's built-in markdown entry (marksman) — in ``markdown-mode`` or in the
  fallback ``agent-doc-markdown-mode``;
- our entry is first in ``eglot-server-programs`` (once, after two setups)
  and wins for ``markdown-mode`` and ``gfm-mode``.

Batch Emacs has no command loop, so after ``find-file`` the driver runs
``post-command-hook`` once, as the loop does after every command (that is
when ``eglot-ensure`` connects).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.harness import EDITORS
from tests.editors.harness import session_doc

pytestmark = pytest.mark.editor

ELPA = Path("/usr/share/emacs/site-lisp/elpa")

DRIVER = r"""
(setq load-path (append (list {load_dirs}) load-path))
{markdown_autoloads}
;; --- docs/editors/emacs.md ---
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(agent-doc-setup)
;; --- end of the documented init ---
(agent-doc-setup)  ; a second call (init reloaded) changes nothing
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp"))
(setq agent-doc-auto-sync nil eglot-sync-connect 30)
(defvar drv-out nil)
(defun drv-put (key value) (push (format "%s=%s" key value) drv-out))
(defun drv-open (file)
  (find-file file)
  (run-hooks 'post-command-hook))  ; what the command loop does after find-file
(defun drv-contact (mode) (nth 2 (eglot--lookup-mode mode)))
(condition-case err
    (progn
      (drv-open {plain})
      (drv-put "plain-mode" major-mode)
      (drv-put "plain-managed" (and eglot--managed-mode t))
      (drv-put "servers-after-plain" (hash-table-count eglot--servers-by-project))
      (drv-open {doc})
      (drv-put "doc-mode" major-mode)
      (let ((deadline (+ (float-time) 40)))
        (while (and (< (float-time) deadline)
                    (not (and eglot--managed-mode (eglot-current-server)
                              (eglot--server-capable :executeCommandProvider))))
          (accept-process-output nil 0.05)))
      (drv-put "doc-managed" (and eglot--managed-mode t))
      (drv-put "server-command"
               (json-encode (process-command (jsonrpc--process (eglot-current-server)))))
      (drv-put "first-entry-ours"
               (eq (cdr (car eglot-server-programs)) #'agent-doc--server-contact))
      (drv-put "entries-ours"
               (cl-count #'agent-doc--server-contact eglot-server-programs :key #'cdr-safe))
      (drv-put "markdown-mode-ours" (eq (drv-contact 'markdown-mode) #'agent-doc--server-contact))
      (drv-put "gfm-mode-ours" (eq (drv-contact 'gfm-mode) #'agent-doc--server-contact))
      (drv-open {doc2})
      (let ((deadline (+ (float-time) 20)))
        (while (and (< (float-time) deadline) (not eglot--managed-mode))
          (accept-process-output nil 0.05)))
      (drv-put "doc2-managed" (and eglot--managed-mode t))
      (drv-put "servers" (hash-table-count eglot--servers-by-project))
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (with-temp-file {out} (insert (mapconcat #'identity (reverse drv-out) "\n")))
      (kill-emacs 0))
  (error (with-temp-file {out} (insert (format "ERROR: %S\n%s" err
                                               (mapconcat #'identity (reverse drv-out) "\n"))))
         (kill-emacs 3)))
"""


def _lisp(value: str | Path) -> str:
    return json.dumps(str(value))


def _elpa_dir(prefix: str) -> Path | None:
    found = sorted(ELPA.glob(f"{prefix}-[0-9]*"))
    return found[-1] if found else None


def _run_emacs(tmp_path: Path, project: Path, *, with_markdown: bool) -> dict[str, str]:
    emacs = shutil.which("emacs")
    eglot = _elpa_dir("eglot")
    if emacs is None or eglot is None:
        pytest.skip("needs emacs-nox and elpa-eglot (apt-get install)")
    markdown = _elpa_dir("markdown-mode")
    if with_markdown and markdown is None:
        pytest.skip("needs elpa-markdown-mode (apt-get install)")
    # eglot and its ELPA dependencies, never markdown-mode unless asked for.
    dirs = [d for d in sorted(ELPA.iterdir()) if not d.name.startswith("markdown-mode")]
    autoloads = ""
    if with_markdown and markdown is not None:
        dirs.append(markdown)
        autoloads = f"(load {_lisp(markdown / 'markdown-mode-autoloads.el')} nil t)"
    plain = project / "notes.md"
    plain.write_text("# Just notes\n\nNo session here.\n", "utf-8")
    doc = session_doc(project, "doc.md", body="Question\n")
    doc2 = session_doc(project, "other.md")
    out = tmp_path / "out.txt"
    driver = tmp_path / "driver.el"
    driver.write_text(
        DRIVER.format(
            load_dirs=" ".join(_lisp(d) for d in dirs),
            markdown_autoloads=autoloads,
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
            plain=_lisp(plain),
            doc=_lisp(doc),
            doc2=_lisp(doc2),
            out=_lisp(out),
        ),
        "utf-8",
    )
    proc = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(driver)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=150,
    )
    text = out.read_text("utf-8") if out.exists() else ""
    assert proc.returncode == 0, text + proc.stdout + proc.stderr
    assert not text.startswith("ERROR"), text + proc.stdout + proc.stderr
    return dict(line.split("=", 1) for line in text.splitlines())


def _assert_attached(result: dict[str, str]) -> None:
    assert result["plain-managed"] == "nil", "a plain .md file starts no server"
    assert result["servers-after-plain"] == "0"
    assert result["doc-managed"] == "t", "the session document starts eglot itself"
    assert json.loads(result["server-command"]) == [
        sys.executable, "-m", "agent_doc_lsp",
    ]  # fmt: skip
    assert result["first-entry-ours"] == "t"
    assert result["entries-ours"] == "1"
    assert result["markdown-mode-ours"] == "t", "ahead of eglot's marksman entry"
    assert result["gfm-mode-ours"] == "t"
    assert result["doc2-managed"] == "t"
    assert result["servers"] == "1"


@pytest.mark.timeout(200)
def test_attaches_with_markdown_mode(tmp_path: Path, project: Path) -> None:
    result = _run_emacs(tmp_path, project, with_markdown=True)
    assert result["plain-mode"] == "markdown-mode"
    assert result["doc-mode"] == "markdown-mode"
    _assert_attached(result)


@pytest.mark.timeout(200)
def test_attaches_without_markdown_mode(tmp_path: Path, project: Path) -> None:
    result = _run_emacs(tmp_path, project, with_markdown=False)
    assert result["plain-mode"] == "agent-doc-markdown-mode"
    assert result["doc-mode"] == "agent-doc-markdown-mode"
    _assert_attached(result)


INTERACTIVE_INIT = """
(setq load-path (append (list {load_dirs}) load-path))
(add-to-list 'load-path {emacs_dir})
(require 'agent-doc)
(agent-doc-setup)
(setq agent-doc-server-command (list {python} "-m" "agent_doc_lsp"))
(setq agent-doc-auto-sync nil)
"""


@pytest.mark.timeout(120)
def test_interactive_emacs_connects_without_a_keypress(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``emacs -nw doc.md`` in a terminal (private tmux), no markdown-mode:
    eglot connects to agent-doc-lsp before the user presses a key."""
    from tests.editors.harness import private_tmux
    from tests.private_tmux import wait_for

    emacs, eglot = shutil.which("emacs"), _elpa_dir("eglot")
    if emacs is None or eglot is None or shutil.which("tmux") is None:
        pytest.skip("needs emacs-nox, elpa-eglot and tmux")
    dirs = [d for d in sorted(ELPA.iterdir()) if not d.name.startswith("markdown-mode")]
    init = tmp_path / "init.el"
    init.write_text(
        INTERACTIVE_INIT.format(
            load_dirs=" ".join(_lisp(d) for d in dirs),
            emacs_dir=_lisp(EDITORS / "emacs"),
            python=_lisp(sys.executable),
        ),
        "utf-8",
    )
    session_doc(project, "doc.md", body="Question\n")
    with private_tmux(monkeypatch) as tmux:
        pane = tmux.run(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=main:", "-c",
            str(project), f"exec {emacs} -nw -Q -l {init} doc.md",
        ).strip()  # fmt: skip
        screen = [""]
        seen_connected = [False]

        def connected() -> bool:
            # The "Connected!" message can be drawn while Emacs still shows
            # *scratch* during start-up; the doc.md mode line with its eglot
            # lighter follows a redisplay later, with no key pressed.
            screen[0] = tmux.capture(pane)
            if "Connected! Server `agent-doc-lsp'" in screen[0]:
                seen_connected[0] = True
            return seen_connected[0] and "[eglot:" in screen[0] and "doc.md" in screen[0]

        try:
            wait_for(connected, 60, "eglot connected to agent-doc-lsp, doc.md shown")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{screen[0]}") from None
        tmux.run("send-keys", "-t", pane, "C-x", "C-c")
