"""Emacs + eglot: an ACP agent's answer streams into the buffer while a person types.

``emacs --batch`` opens a session document with ``editors/emacs/agent-doc.el``,
asks ``agentDoc.runAgent`` asynchronously over eglot's connection and inserts a
note key by key at point, pausing between words, while the stand-in ACP agent
streams. eglot sends ``didChange`` only after 0.5 s idle (emulated: batch Emacs
is never idle) and rejects edits pinned to a stale version, so streamed edits
made while the person types are refused and the next step catches up.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.editors.harness import EDITORS
from tests.editors.harness import Emacs
from tests.editors.harness import PrivateTmux
from tests.editors.harness import emacs_in_tmux
from tests.editors.harness import lisp_string
from tests.editors.harness import wait_for
from tests.editors.typing import type_words

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
    grew = [b - a for a, b in itertools.pairwise(sizes)]
    assert any(step > 1 for step in grew)  # the answer grew while they typed
    assert doc.read_text("utf-8") == DOC


STATE = """
(with-current-buffer (get-file-buffer {doc})
  (let ((at (window-point (get-buffer-window))))
    (json-encode
     (list (cons 'text (buffer-substring-no-properties (point-min) (point-max)))
           (cons 'line (save-excursion (goto-char at)
                         (buffer-substring-no-properties (line-beginning-position) at)))
           (cons 'eol (save-excursion (goto-char at) (eolp)))
           (cons 'landed agent-doc-acp-last-landed)
           (cons 'messages (with-current-buffer "*Messages*" (buffer-string)))))))
"""
WORDS = ["my", "note,", "typed", "while", "the", "answer", "streams", "in,"]
WORDS += ["word", "after", "word,", "until", "it", "is", "all", "there"]
EGLOT_PAUSE_S = 2.5
"""A pause long enough for eglot (didChange after 0.5 s idle) to report the
person's text and the answer's edits, and for the answer to land."""


@pytest.fixture
def tui(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PrivateTmux, str, Emacs, Path]]:
    """``emacs -nw`` in a private tmux pane on the stand-in's session document."""
    doc = project / "plan.md"
    doc.write_text(DOC)
    with emacs_in_tmux(tmp_path, project, doc, monkeypatch) as (tmux, pane, emacs):
        yield tmux, pane, emacs, doc


def _state(emacs: Emacs, doc: Path) -> dict:
    return emacs.json(STATE.format(doc=lisp_string(doc)))


def _keys(tmux: PrivateTmux, pane: str, *keys: str) -> None:
    tmux.run("send-keys", "-t", pane, *keys)


@pytest.mark.timeout(240)
def test_streamed_answer_is_one_undo_step_in_emacs(tui, tmp_path: Path) -> None:
    """``C-c a q`` asks; the person types words with pauses at the end while
    the answer streams (until they see all of it); one ``C-_`` removes exactly the
    answer, a second one what they typed meanwhile."""
    tmux, pane, emacs, doc = tui
    # The stream spans several of the person's pauses (9 chunks, 0.8 s apart):
    # streamed at 0.05 s a chunk it fit inside one 2.5 s pause on a fast
    # machine, and the test could not see it grow while they typed.
    configure_standin(
        tmp_path,
        {"ACP_AGENT_REPLY": REPLY, "ACP_AGENT_CHUNK": "4", "ACP_AGENT_DELAY": "0.8"},
    )
    _keys(tmux, pane, "M->", "C-c", "a", "q")
    grew: list[int] = []
    typed = type_words(
        tmux, pane, WORDS,
        after_word=lambda: grew.append(_state(emacs, doc)["text"].count(" word")),
        stop=lambda: "It is 4." in _state(emacs, doc)["text"],  # the whole answer
        pause_s=EGLOT_PAUSE_S,
    )  # fmt: skip
    wait_for(lambda: _state(emacs, doc)["landed"] is not None, 90, "answerLanded")
    state = _state(emacs, doc)
    answered = state["text"]

    assert state["landed"]["one-undo-step"] is True, state["landed"]
    assert len({n for n in grew if n > 0}) >= 2, grew  # it grew while they typed
    assert answered.endswith("Notes:\n" + typed)  # 0 characters lost, in order
    assert answered.count(REPLY) == 1
    assert "resume: " in answered
    assert state["line"] == typed  # point in their text, at its end
    assert state["eol"] is True
    assert "answered" in state["messages"]  # C-c a q reported the result

    def undo(before: str) -> str:
        _keys(tmux, pane, "C-_")
        wait_for(lambda: _state(emacs, doc)["text"] != before, 5, "undo")
        return str(_state(emacs, doc)["text"])

    once = undo(answered)
    assert once == DOC + typed  # the answer and the resume line, nothing else
    twice = undo(once)
    assert "### Re: sum" not in twice  # the answer does not come back
    assert twice.startswith(DOC)
    assert typed.startswith(twice[len(DOC) :])
    assert len(twice) < len(once)  # the typing done while it streamed
    assert doc.read_text("utf-8") == DOC


@pytest.mark.timeout(240)
def test_ask_and_stop_keys_in_emacs(tui, tmp_path: Path) -> None:
    """``C-c a q`` starts the ACP agent, ``C-c a k`` stops it: what streamed
    stays, marked interrupted (and one ``C-_`` takes it out)."""
    tmux, pane, emacs, doc = tui
    long_reply = "### Re: sum\n\n" + " ".join(f"word{i}" for i in range(400))
    configure_standin(
        tmp_path,
        {
            "ACP_AGENT_REPLY": long_reply,
            "ACP_AGENT_CHUNK": "4",
            "ACP_AGENT_DELAY": "0.05",
        },
    )
    _keys(tmux, pane, "C-c", "a", "q")
    wait_for(lambda: "word3 " in _state(emacs, doc)["text"], 60, "the answer streaming")
    _keys(tmux, pane, "C-c", "a", "k")
    wait_for(lambda: _state(emacs, doc)["landed"] is not None, 60, "the stopped answer")
    state = _state(emacs, doc)
    text = state["text"]

    assert "*(interrupted)*" in text
    assert "word399" not in text  # stopped before the end
    assert text.index("What is 2 + 2?") < text.index("word3 ")
    assert text.index("*(interrupted)*") < text.index("<!-- /agent:exchange -->")
    assert "stopping the agent" in state["messages"]
    assert "answer interrupted" in state["messages"]
    assert state["landed"]["one-undo-step"] is True
    _keys(tmux, pane, "C-_")
    wait_for(lambda: "*(interrupted)*" not in _state(emacs, doc)["text"], 5, "undo")
    assert _state(emacs, doc)["text"] == DOC
