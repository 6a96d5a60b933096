"""Concurrency fuzz: the user types while the agent writes; nothing is lost.

**Live buffer** (the real server over stdio, one server per batch, one document
per scenario): an editor-like pytest-lsp client types random edits — whole
lines at random line starts and keystroke-by-keystroke tokens above the
exchange's close marker — at random moments: before the write, concurrently
with it, and *between the server's read of the buffer and the arrival of its
edit* (the editor's ``before_apply`` hook). Agent writes go through the CLI's
own write path (``write_response`` + ``ServerLink`` in a thread, i.e. the same
socket ``read``/``write`` messages ``agent-doc write`` sends) and, for every
:data:`CLI_EVERY`-th scenario, through a real ``agent-doc write`` process. The
batches cover the three editor modes (apply anything, reject stale, claim
applied but skip stale like Neovim).

Invariants on every scenario: every token the user typed is present exactly
once; every agent answer is present exactly once and after the prompt it
answers; at most one boundary marker outside code; the snapshot equals the
write's content_ours; the server's buffer equals the editor's.

**Disk** (no editor): a writer process (``write_response`` with a stale
baseline, plus real ``agent-doc write`` runs) and a "user" process editing the
file under the document lock run concurrently; every user edit survives.

The documents set ``agent_doc_debounce_ms: 1`` so the server's wait for the
person's pause (issue 12) does not take the races away.

Seed: ``AGENT_DOC_FUZZ_SEED`` (default 7); scenarios per mode:
``AGENT_DOC_FUZZ_SCENARIOS`` (default 170, so 510 in all).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from agent_doc.cycle.recovery import recover_pending
from agent_doc.document.boundary import find_boundaries
from agent_doc.errors import ServerTimeout
from agent_doc.store.state import StateStore
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from agent_doc.write.server_link import ServerLink
from tests.lsp.editor_client import ApplyMode
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import position_of
from tests.reliability._server import ask
from tests.reliability._server import open_session
from tests.reliability._server import request
from tests.reliability._util import AGENT_DOC
from tests.reliability._util import ROOT
from tests.reliability._util import cli_env
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import template_doc

SEED = int(os.environ.get("AGENT_DOC_FUZZ_SEED", "7"))
PER_MODE = int(os.environ.get("AGENT_DOC_FUZZ_SCENARIOS", "170"))
CLI_EVERY = 25


class Scenario:
    """One document, its typed tokens and the agent answers written into it."""

    def __init__(self, editor: Editor, root: Path, n: int, rng: random.Random) -> None:
        self.editor = editor
        self.rng = rng
        self.n = n
        self.path = root / f"s{n}.md"
        self.prompt = f"PROMPT-{n}-q"
        # a 1 ms pause length: writes land between keystrokes instead of
        # waiting for the typist's pause, so they still race with typing
        text = template_doc(self.prompt).replace(
            "agent_doc_format:", "agent_doc_debounce_ms: 1\nagent_doc_format:", 1
        )
        self.path.write_text(text)
        self.uri = self.path.as_uri()
        self.tokens: list[str] = []
        self.answers: list[str] = []
        self.snapshots: list[tuple[str, str]] = []
        self.timeouts = 0
        editor.open(self.uri, text)

    async def opened(self, sock: str) -> None:
        """Wait (bounded) until the server has processed our ``didOpen``."""
        deadline = time.monotonic() + 10
        while not (await ask(sock, request(type="read", file=str(self.path))))["open"]:
            assert time.monotonic() < deadline, "didOpen not processed"
            await asyncio.sleep(0.002)

    # -- the user ----------------------------------------------------------
    def _token(self) -> str:
        token = f"U{self.n}x{len(self.tokens)}z"
        self.tokens.append(token)
        return token

    def type_line(self) -> None:
        """Insert a whole line at the start of a random body line (one change).

        Lines inside the replace-mode status component are never chosen: its
        content belongs to the agent and is replaced as a whole by design.
        """
        text = self.editor.text(self.uri)
        lines = text.split("\n")
        body = next(i for i in range(1, len(lines)) if lines[i] == "---") + 1
        # not inside the replace-mode status component: the agent owns its content
        opened = lines.index("<!-- agent:status patch=replace -->")
        closed = lines.index("<!-- /agent:status -->")
        choices = [i for i in range(body, len(lines)) if not opened < i <= closed]
        line = self.rng.choice(choices)
        self.editor.type(self.uri, line, 0, self._token() + "\n")

    async def type_keystrokes(self) -> None:
        """Type a token key by key on a new line above the exchange's close marker.

        The first change opens the line with the token's unique head; each
        following keystroke is placed after what was typed so far, wherever the
        agent's edits moved it (like an editor's cursor).
        """
        text = self.editor.text(self.uri)
        close = text.rfind("<!-- /agent:exchange -->")
        pos = position_of(text, close, self.editor.encoding)
        head = f"K{self.n}.{len(self.tokens)}:"
        tail = "".join(self.rng.choice("abcdefgh") for _ in range(6))
        self.tokens.append(head + tail)
        self.editor.type(self.uri, pos.line, 0, head + "\n")
        for i, ch in enumerate(tail):
            text = self.editor.text(self.uri)
            at = text.index(head) + len(head) + i
            where = position_of(text, at, self.editor.encoding)
            self.editor.type(self.uri, where.line, where.character, ch)
            if self.rng.random() < 0.3:
                await asyncio.sleep(0)

    async def typist(self, edits: int) -> None:
        """Random edits at random moments while the agent writes."""
        for _ in range(edits):
            await asyncio.sleep(self.rng.uniform(0, 0.004))
            if self.rng.random() < 0.6:
                self.type_line()
            else:
                await self.type_keystrokes()

    # -- the agent -----------------------------------------------------------
    def response(self) -> str:
        answer = f"ANS-{self.n}-{len(self.answers)}-a"
        self.answers.append(answer)
        status = ""
        if self.rng.random() < 0.3:
            status = (
                f"<!-- patch:status -->\nworking {answer}\n<!-- /patch:status -->\n"
            )
        return (
            f"{status}<!-- patch:exchange -->\n### Re: {self.prompt}\n"
            f"{answer} done.\n<!-- /patch:exchange -->\n"
        )

    async def recover(self) -> None:
        """Land a write that timed out, like the next agent cycle: ``recover``."""
        if not self.timeouts:
            return
        link = ServerLink(self.path.parent)
        results = await asyncio.wait_for(
            asyncio.to_thread(recover_pending, self.path, link), 30
        )
        assert [r.status for r in results] == ["written"], results
        outcome = results[0].outcome
        assert outcome is not None
        assert outcome.target == "server"
        store = StateStore(self.path.parent)
        self.snapshots.append(
            (outcome.content_ours, store.load_snapshot(self.path) or "")
        )

    async def write(self, via_cli: bool) -> None:
        response = self.response()
        if via_cli:
            proc = await asyncio.create_subprocess_exec(
                AGENT_DOC,
                "write",
                str(self.path),
                "--json",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=cli_env(),
                cwd=str(self.path.parent),
            )
            out, err = await asyncio.wait_for(proc.communicate(response.encode()), 30)
            assert proc.returncode == 0, err.decode()
            outcome = json.loads(out)
            assert outcome["target"] == "server", outcome
            ours = outcome["content_ours"]
        else:
            link = ServerLink(self.path.parent)
            request_ = WriteRequest(self.path, response, origin="fuzz")
            try:
                done = await asyncio.wait_for(
                    asyncio.to_thread(write_response, request_, link), 30
                )
            except ServerTimeout:
                # the contract (exit 75): nothing written, the response pending
                store = StateStore(self.path.parent)
                assert store.load_pending(self.path) == response
                assert self.answers[-1] not in self.editor.text(self.uri)
                self.timeouts += 1
                return
            assert done.target == "server"
            ours = done.content_ours
        self.snapshots.append(
            (ours, StateStore(self.path.parent).load_snapshot(self.path) or "")
        )

    # -- checks --------------------------------------------------------------
    async def synced(self, sock: str) -> None:
        """Wait (bounded) until the server's buffer equals the editor's."""
        deadline = time.monotonic() + 10
        while True:
            reply = await ask(sock, request(type="read", file=str(self.path)))
            if reply.get("text") == self.editor.text(self.uri):
                return
            assert time.monotonic() < deadline, "server and editor disagree"
            await asyncio.sleep(0.002)

    async def check(self, sock: str) -> None:
        await self.synced(sock)
        text = self.editor.text(self.uri)
        for token in self.tokens:
            assert text.count(token) == 1, (
                f"typed {token!r} x{text.count(token)} in\n{text}\n{self.tokens}"
            )
        prompt_at = text.find(self.prompt)
        # the prompt itself, then one "### Re: <prompt>" per answer
        assert text.count(self.prompt) == 1 + len(self.answers)
        for answer in self.answers:
            assert text.count(answer + " done.") == 1, f"{answer} not exactly once"
            assert text.find(answer + " done.") > prompt_at, f"{answer} before prompt"
        assert len(find_boundaries(text)) <= 1, "more than one boundary"
        ours, snapshot = self.snapshots[-1]
        assert snapshot == ours, "snapshot != content_ours"
        self.editor.close(self.uri)


async def _run_batch(
    client: LanguageClient, root: Path, mode: ApplyMode, seed: int, count: int
) -> dict[str, int]:
    editor, reg = await open_session(client, root, mode=mode)
    sock = reg["socket"]
    figures = {
        "scenarios": 0,
        "cli_writes": 0,
        "writes": 0,
        "races": 0,
        "timeouts_recovered": 0,
    }
    for n in range(count):
        scenario_seed = seed * 100_003 + n
        rng = random.Random(scenario_seed)
        sc = Scenario(editor, root, n, rng)
        await sc.opened(sock)
        # edits typed between the server's read and the edit's arrival; an editor
        # that applies stale edits anyway (APPLY) would corrupt any text, so it
        # only gets edits between writes (see docs/reliability.md)
        lax = mode is ApplyMode.APPLY
        races = [0 if lax else rng.randrange(0, 3)]

        def before_apply(
            _editor: Editor, sc: Scenario = sc, left: list[int] = races
        ) -> None:
            if left[0] > 0 and sc.rng.random() < 0.7:
                left[0] -= 1
                figures["races"] += 1
                sc.type_line()

        editor.before_apply = before_apply
        try:
            for _ in range(rng.randrange(0, 3)):
                sc.type_line()
            writes = 1 + (rng.random() < 0.3)
            for w in range(writes):
                via_cli = n % CLI_EVERY == 0 and w == 0
                typing = rng.randrange(0, 5)
                if lax:
                    await sc.synced(sock)  # the server saw every keystroke
                    await sc.write(via_cli)
                    await sc.typist(typing)
                else:
                    await asyncio.gather(sc.write(via_cli), sc.typist(typing))
                editor.before_apply = None
                await sc.recover()
                editor.before_apply = before_apply
                figures["timeouts_recovered"] += sc.timeouts
                sc.timeouts = 0
                figures["writes"] += 1
                figures["cli_writes"] += via_cli
            editor.before_apply = None
            await sc.check(sock)
        except BaseException as exc:
            raise AssertionError(
                f"scenario {n} ({mode.value}) failed; reproduce with "
                f"AGENT_DOC_FUZZ_SEED={seed} (scenario seed {scenario_seed}): {exc!r}"
            ) from exc
        figures["scenarios"] += 1
    return figures


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "mode", [ApplyMode.REJECT_STALE, ApplyMode.SKIP_STALE, ApplyMode.APPLY]
)
async def test_live_buffer_fuzz(
    client: LanguageClient, tmp_path: Path, mode: ApplyMode
) -> None:
    """PER_MODE scenarios against one server: typed text and answers exactly once."""
    root = make_project(tmp_path / "ws")
    started = time.monotonic()
    seed = SEED + list(ApplyMode).index(mode)
    figures = await _run_batch(client, root, mode, seed, PER_MODE)
    record(
        "fuzz-live",
        mode=mode.value,
        seed=seed,
        seconds=round(time.monotonic() - started, 1),
        **figures,
    )
    assert figures["scenarios"] == PER_MODE


USER_SCRIPT = """
import random, sys, time
from pathlib import Path
from agent_doc.store.state import doc_lock, read_document, write_document
path, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
for i in range(count):
    with doc_lock(path, timeout=60):
        doc = read_document(path)
        lines = doc.text.split("\\n")
        body = next(j for j in range(1, len(lines)) if lines[j] == "---") + 1
        at = rng.randrange(body, len(lines))
        lines.insert(at, f"DISKUSER-{i}-k")
        write_document(path, doc, "\\n".join(lines))
    time.sleep(rng.uniform(0, 0.003))
"""

WRITER_SCRIPT = """
import sys
from pathlib import Path
from agent_doc.write.pipeline import WriteRequest, write_response
path, count = Path(sys.argv[1]), int(sys.argv[2])
baseline = path.read_text()
for i in range(count):
    response = (f"<!-- patch:exchange -->\\nDISKANS-{i}-w\\n<!-- /patch:exchange -->\\n")
    write_response(WriteRequest(path, response, baseline=baseline, origin="fuzz"))
    if i % 3 == 0:
        baseline = path.read_text()  # sometimes fresh, mostly stale
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_disk_fuzz_user_edits_survive(tmp_path: Path) -> None:
    """A writer process and a user process edit one file; nothing is lost."""
    rounds = int(os.environ.get("AGENT_DOC_DISK_FUZZ_ROUNDS", "8"))
    total_user = total_agent = total_cli = 0
    started = time.monotonic()
    for r in range(rounds):
        root = make_project(tmp_path / f"disk{r}")
        doc = root / "doc.md"
        doc.write_text(template_doc(f"DISKPROMPT-{r}"))
        users, writes = 40, 25
        env = cli_env()
        user = subprocess.Popen(
            [
                sys.executable,
                "-c",
                USER_SCRIPT,
                str(doc),
                str(SEED * 31 + r),
                str(users),
            ],
            env=env,
            cwd=ROOT,
        )
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER_SCRIPT, str(doc), str(writes)],
            env=env,
            cwd=ROOT,
        )
        cli = 0
        for i in range(2):  # real agent-doc write processes in the mix
            response = (
                f"<!-- patch:exchange -->\nDISKCLI-{i}-c\n<!-- /patch:exchange -->\n"
            )
            done = subprocess.run(
                [AGENT_DOC, "write", str(doc)],
                input=response.encode(),
                env=env,
                cwd=root,
                capture_output=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stderr.decode()
            cli += 1
        assert user.wait(timeout=120) == 0
        assert writer.wait(timeout=120) == 0
        text = doc.read_text()
        for i in range(users):
            assert text.count(f"DISKUSER-{i}-k") == 1, f"round {r}: user edit {i} lost"
        for i in range(writes):
            assert text.count(f"DISKANS-{i}-w") == 1, f"round {r}: answer {i}"
        for i in range(cli):
            assert text.count(f"DISKCLI-{i}-c") == 1, f"round {r}: cli answer {i}"
        assert len(find_boundaries(text)) <= 1
        total_user += users
        total_agent += writes
        total_cli += cli
    record(
        "fuzz-disk",
        rounds=rounds,
        user_edits=total_user,
        agent_writes=total_agent,
        cli_writes=total_cli,
        seconds=round(time.monotonic() - started, 1),
    )
