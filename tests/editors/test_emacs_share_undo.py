"""Emacs's undo keys in a shared document undo the person's own text only.

A real ``agent-doc serve``, ``emacs -nw`` with eglot and agent-doc.el in a
private tmux (its own host: HOME, token copy, checkout whose
``.agent-doc/config.toml`` points at the server), keys sent with
``tmux send-keys``, and the agent's answer written by ``agent-doc write
--room`` from a host that shares no files with Emacs. After the person typed
and the answer landed, ``C-_`` (``undo``, remapped by
``agent-doc-own-undo-mode``) takes back the person's words and leaves the
answer — Emacs's own undo would remove the answer, the buffer's last change —
and ``C-M-_`` (``undo-redo``) brings them back.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.harness import emacs_pane
from tests.editors.harness import lisp_string
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.shared_room import emacs_extra
from tests.editors.shared_room import emacs_goto
from tests.editors.shared_room import emacs_state
from tests.editors.shared_room import make_host
from tests.editors.shared_room import project_sync
from tests.editors.shared_room import remote_write
from tests.editors.shared_room import room_text
from tests.editors.shared_room import type_at_pace
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(120)]

NAME = "pair.md"
MINE = " and show the steps"
ANSWER = "<!-- patch:exchange -->\nIt is 42.\n<!-- /patch:exchange -->\n"


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / NAME).write_text(DOC, encoding="utf-8")
    server = ServeProcess(project).start()
    yield server
    server.kill()


def test_undo_keys_undo_the_persons_text_and_keep_the_agents_answer(
    served: ServeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = served.root
    token = token_of(project)
    bob, agent = (
        make_host(tmp_path / name, project, NAME, token) for name in ("bob", "agent")
    )
    project_sync(bob, served.url)
    doc = bob.checkout / NAME
    file = project / NAME
    own_mode = (
        f"(with-current-buffer (get-file-buffer {lisp_string(doc)}) "
        "(and agent-doc-own-undo-mode t))"
    )
    with (
        private_tmux(monkeypatch) as tmux,
        emacs_pane(
            tmux, bob.home, bob.checkout, doc, extra=emacs_extra(bob), env=bob.env()
        ) as (pane, emacs),
    ):
        wait_for(lambda: emacs.eval(own_mode) == "t", 30, "own undo on (shared)")
        emacs_goto(emacs, doc, "What is 6 x 7?", at_end=True)
        type_at_pace(tmux, pane, MINE, random.Random(5))
        wait_for(lambda: MINE in file.read_text("utf-8"), 20, "the words in the room")

        written = remote_write(agent, NAME, served.url, ANSWER)
        assert written.returncode == 0, written.stderr
        wait_for(
            lambda: "It is 42." in emacs_state(emacs, doc)["text"], 20, "the answer"
        )
        typed = emacs_state(emacs, doc)["text"]
        assert typed.count(f"What is 6 x 7?{MINE}") == 1

        tmux.run("send-keys", "-t", pane, "M-<")  # point away from the words
        wait_for(lambda: emacs_state(emacs, doc)["before"] == "", 10, "point at top")
        tmux.run("send-keys", "-t", pane, "C-_")
        wait_for(lambda: MINE not in emacs_state(emacs, doc)["text"], 20, "undone")
        # point went where the words were, as after Emacs's own undo
        wait_for(
            lambda: emacs_state(emacs, doc)["before"].startswith("What is 6 x 7"),
            10,
            f"point on the undone line (got {emacs_state(emacs, doc)})",
        )
        undone = emacs_state(emacs, doc)["text"]
        assert undone == typed.replace(MINE, "")
        assert undone.count("It is 42.") == 1
        assert room_text(served.room(), token) == undone
        wait_for(lambda: file.read_text("utf-8") == undone, 10, "the file undone")

        tmux.run("send-keys", "-t", pane, "C-M-_")
        wait_for(lambda: MINE in emacs_state(emacs, doc)["text"], 20, "redone")
        assert emacs_state(emacs, doc)["text"] == typed
        assert room_text(served.room(), token) == typed
        wait_for(lambda: file.read_text("utf-8") == typed, 10, "the file redone")
