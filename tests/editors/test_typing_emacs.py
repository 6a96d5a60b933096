"""Typing like a person in Emacs + eglot while the agent writes (issue 12).

``emacs -nw`` runs in a private tmux server with editors/emacs/agent-doc.el
and eglot at its defaults (``eglot-send-changes-idle-time`` 0.5 s: didChange
only after half a second without input). Keys go through ``tmux send-keys``
at 10 characters a second — real input events, so eglot's idle timer behaves
as with a person — at the end of the prompt line or on a new follow-up line,
while a real ``agent-doc write`` with ``status`` and ``exchange`` patches
runs. Buffer, point and undo are read back with ``emacsclient``.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc.write.server_link import ServerLink
from tests.editors.harness import Emacs
from tests.editors.harness import PrivateTmux
from tests.editors.harness import emacs_in_tmux
from tests.editors.harness import wait_for
from tests.editors.typing import TRIALS
from tests.editors.typing import Trial
from tests.editors.typing import cursor_outside
from tests.editors.typing import doc_text
from tests.editors.typing import expectation
from tests.editors.typing import finish_write
from tests.editors.typing import lost_characters
from tests.editors.typing import print_table
from tests.editors.typing import record_summary
from tests.editors.typing import response
from tests.editors.typing import start_write
from tests.editors.typing import summary
from tests.editors.typing import type_keys

pytestmark = pytest.mark.editor

STATE = """
(with-current-buffer (get-file-buffer {doc})
  (json-encode
   (list (cons 'text (buffer-substring-no-properties (point-min) (point-max)))
         (cons 'line (1- (line-number-at-pos (window-point (get-buffer-window)))))
         (cons 'column (save-excursion (goto-char (window-point (get-buffer-window)))
                                       (current-column)))
         (cons 'applied agent-doc-last-apply-time)
         (cons 'managed (and (eglot-current-server) t)))))
"""


def _lisp(value: object) -> str:
    return json.dumps(str(value))


@pytest.fixture
def session(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PrivateTmux, str, Emacs, Path]]:
    """Emacs in a private tmux pane, with a session document under eglot."""
    doc = project / "typing.md"
    doc.write_text(doc_text(str(uuid.uuid4()), 0), "utf-8")
    with emacs_in_tmux(tmp_path, project, doc, monkeypatch) as (tmux, pane, emacs):
        yield tmux, pane, emacs, doc


def _reset(emacs: Emacs, doc: Path, text: str, line: int) -> None:
    """Put ``text`` in the buffer, point at the end of ``line`` (1-based)."""
    emacs.eval(
        f"(with-current-buffer (get-file-buffer {_lisp(doc)}) "
        f"(erase-buffer) (insert {_lisp(text)}) (undo-boundary) "
        f"(goto-char (point-min)) (forward-line {line - 1}) (end-of-line) "
        "(set-window-point (get-buffer-window) (point)) "
        "(setq agent-doc-last-apply-time nil) "
        "(eglot--signal-textDocument/didChange) t)"
    )
    link = ServerLink()

    def synced() -> bool:
        owner = link.find_owner(doc)
        return owner is not None and owner.text == text

    wait_for(synced, 10, "the server to hold the reset buffer")


def _trial(
    tmux: PrivateTmux, pane: str, emacs: Emacs, doc: Path, n: int, rng: random.Random
) -> Trial:
    session = f"00000000-0000-4000-8000-{n:012d}"
    follow_up = n % 2 == 1
    base = doc_text(session, n)
    expected = expectation(session, n, follow_up)
    _reset(emacs, doc, base, base.split("\n").index(f"Question {n}?") + 1)
    if follow_up:
        tmux.run("send-keys", "-t", pane, "Enter")
    head = rng.randint(2, 6)  # the write starts while the person types
    type_keys(tmux, pane, expected.typed[:head])
    write = start_write(doc, base, response(n))
    type_keys(tmux, pane, expected.typed[head:])
    paused = time.time()
    code, err = finish_write(write)
    assert code == 0, f"trial {n}: agent-doc write exited {code}: {err}"
    state = emacs.json(STATE.format(doc=_lisp(doc)))
    latency = max((state["applied"] or paused) - paused, 0.0)
    lost = lost_characters(expected, state["text"])
    cursor_out = cursor_outside(expected, state["text"], state["line"], state["column"])
    answered = state["text"]
    tmux.run("send-keys", "-t", pane, "C-_")
    deadline = time.monotonic() + 3
    undone = answered
    while time.monotonic() < deadline and undone == answered:
        time.sleep(0.05)
        undone = emacs.json(STATE.format(doc=_lisp(doc)))["text"]
    note = "" if lost == 0 else repr(state["text"][-160:])
    return Trial(
        "follow-up" if follow_up else "prompt",
        lost,
        cursor_out,
        undone == expected.undone,
        latency,
        note,
    )


@pytest.mark.timeout(600)
def test_typing_in_emacs_while_answers_land(session) -> None:
    tmux, pane, emacs, doc = session
    rng = random.Random(12)
    trials = [_trial(tmux, pane, emacs, doc, n, rng) for n in range(TRIALS)]
    print_table("emacs", trials)
    record_summary("emacs", trials)
    figures = summary("emacs", trials)
    assert figures["lost_or_misplaced_chars"] == 0, [t.note for t in trials]
    assert figures["cursor_outside"] == 0
    assert figures["undo_exact_pct"] == 100
