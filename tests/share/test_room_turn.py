"""The room carries the turn: snapshot, lease and sessions agree across hosts.

A real ``agent-doc serve`` serves the project; each agent host is a git clone
with its own HOME and config (:mod:`tests.share.agent_hosts`), running the
real ``agent-doc run --room`` / ``write --room`` with the gated CLI stand-in.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agent_doc.share.turn_state import claims_map
from agent_doc.share.turn_state import current_lease
from agent_doc.store.state import StateStore
from tests.share.agent_hosts import AgentHost
from tests.share.agent_hosts import finished
from tests.share.agent_hosts import git
from tests.share.agent_hosts import new_host
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)

END = "<!-- /agent:exchange -->"
LEASE_S = "6"


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    server = ServeProcess(project, env={"AGENT_DOC_ROOM_LEASE_S": LEASE_S}).start()
    yield server
    server.kill()


@pytest.fixture
def host_a(tmp_path: Path, project: Path, served: ServeProcess) -> AgentHost:
    host = new_host(tmp_path, project, served, "host-a")
    host.env["GATED_AGENT_SESSION"] = "sess-a"
    return host


@pytest.fixture
def host_b(tmp_path: Path, project: Path, served: ServeProcess) -> AgentHost:
    host = new_host(tmp_path, project, served, "host-b")
    host.env["GATED_AGENT_SESSION"] = "sess-b"
    return host


def diff_of(prompt: str) -> str:
    """The ``<diff>`` section of a prompt ('' when it has none)."""
    if "<diff>" not in prompt:
        return ""
    return prompt.split("<diff>", 1)[1].split("</diff>", 1)[0]


def snapshot_of(host: AgentHost) -> str | None:
    return StateStore(host.checkout).load_snapshot(host.checkout / "pair.md")


async def ask(served: ServeProcess, question: str) -> str:
    """A person types ``question`` at the end of the exchange (as an editor)."""
    async with peer(served.room(), token_of(served.root)) as alice:
        alice.type(str(alice.text).index(END), question + "\n")  # ASCII: bytes
        return await alice.until(lambda t: question in t)


async def claims_in_room(served: ServeProcess, count: int) -> None:
    """Wait (bounded) until the room holds ``count`` claims of its turn."""
    async with peer(served.room(), token_of(served.root)) as watcher:
        claims = claims_map(watcher.doc)
        changed = anyio.Event()

        def on_change(_event: object) -> None:
            changed.set()

        subscription = watcher.doc.observe(on_change)
        try:
            with anyio.fail_after(30):
                while len(claims) < count:
                    await changed.wait()
                    changed = anyio.Event()
        finally:
            watcher.doc.unobserve(subscription)


async def room_text(served: ServeProcess) -> str:
    async with peer(served.room(), token_of(served.root)) as alice:
        return str(alice.text)


async def test_write_room_moves_the_snapshot_the_next_run_diffs_against(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """``write --room`` then ``run --room`` from the same host (and from
    another): the question the write answered is not sent again."""
    host_a.gate.touch()
    code, err = await finished(host_a.run(served.url, "--agent", "gated"))
    assert code == 0, err  # host a's agent has a session now
    await ask(served, "And 3 + 3?")
    six = "<!-- patch:exchange -->\nIt is 6.\n<!-- /patch:exchange -->\n"
    landed = host_a.write(served.url, six)  # e.g. the agent's skill in a pane
    assert landed.returncode == 0, landed.stderr
    assert snapshot_of(host_a) == await room_text(served)
    for host in (host_a, host_b):
        code, err = await finished(host.run(served.url, "--agent", "gated"))
        assert code == 0, err
        assert "nothing to send" in err, err
    assert len(host_a.prompts()) == 1
    assert host_b.prompts() == []
    await ask(served, "And 4 + 4?")
    code, err = await finished(host_a.run(served.url, "--agent", "gated"))
    assert code == 0, err
    prompt = host_a.prompts()[-1]
    assert "+And 4 + 4?" in diff_of(prompt)
    assert "+And 3 + 3?" not in diff_of(prompt)  # answered by the write
    assert "+It is 6." not in diff_of(prompt)


async def test_the_same_answer_written_twice_lands_once(
    served: ServeProcess, host_a: AgentHost
) -> None:
    baseline = host_a.checkout.parent / "baseline.md"
    baseline.write_text(DOC)
    for expected in ("wrote", "already landed:"):
        res = host_a.write(served.url, ANSWER, "--baseline-file", str(baseline))
        assert res.returncode == 0, res.stderr
        assert f"agent-doc: {expected} pair.md" in res.stderr
    assert (await room_text(served)).count("It is 42.") == 1


async def test_a_retried_write_without_baseline_lands_once(
    served: ServeProcess, host_a: AgentHost
) -> None:
    """``write --room`` without ``--baseline-file`` (the answer applies to the
    room's text): retried after it landed — also after a person typed — it
    is not written again; the same text answering a new turn still is."""
    six = "<!-- patch:exchange -->\nIt is 6.\n<!-- /patch:exchange -->\n"
    first = host_a.write(served.url, six)
    assert first.returncode == 0, first.stderr
    assert "agent-doc: wrote pair.md" in first.stderr
    await ask(served, "And typed meanwhile?")
    retry = host_a.write(served.url, six)
    assert retry.returncode == 0, retry.stderr
    assert "agent-doc: already landed: pair.md" in retry.stderr
    text = await room_text(served)
    assert text.count("It is 6.") == 1
    assert "And typed meanwhile?" in text
    seven = "<!-- patch:exchange -->\nIt is 7.\n<!-- /patch:exchange -->\n"
    assert host_a.write(served.url, seven).returncode == 0
    again = host_a.write(served.url, six)  # a new turn's answer, same text
    assert "agent-doc: wrote pair.md" in again.stderr, again.stderr
    assert (await room_text(served)).count("It is 6.") == 2


async def first_to_end(*procs: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """The first of ``procs`` to exit (bounded)."""
    with anyio.fail_after(30):
        while True:
            for proc in procs:
                if proc.poll() is not None:
                    return proc
            await anyio.sleep(0.05)


async def test_two_hosts_at_once_one_turn_the_other_refused(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """Two hosts start ``run --room`` 0.3 s apart on the same question: one
    agent is called, the other run is refused as a second local run is."""
    a = host_a.run(served.url, "--agent", "gated")
    await anyio.sleep(0.3)  # the measured case: 0.3 s apart
    b = host_b.run(served.url, "--agent", "gated")
    refused = await first_to_end(a, b)
    winner = b if refused is a else a
    code, err = await finished(refused)
    assert code == 1, err
    holder = f"pid {winner.pid} on {socket.gethostname()}, `run`, since "
    assert f"pair.md already has a turn running ({holder}" in err, err
    assert err.rstrip().endswith("; use --wait to queue"), err
    assert err.count("\n") == 1, err
    host_a.gate.touch()
    host_b.gate.touch()
    code, err = await finished(winner)
    assert code == 0, err
    assert len(host_a.prompts()) + len(host_b.prompts()) == 1
    text = await room_text(served)
    assert text.count("It is 42.") == 1
    assert text.count("### Re: product") == 1
    assert "<!-- patch:" not in text
    assert "<!-- /patch:" not in text


async def test_a_second_host_with_wait_queues_then_sees_the_answer(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    a = host_a.run(served.url, "--agent", "gated")
    await wait_file(host_a.calls, lambda t: t.strip() != "", timeout=30)
    b = host_b.run(served.url, "--agent", "gated", "--wait", "--timeout", "60")
    await claims_in_room(served, 2)  # b is queued behind a
    assert b.poll() is None
    host_a.gate.touch()
    code, err = await finished(a)
    assert code == 0, err
    code, err = await finished(b)
    assert code == 0, err
    assert f"has a turn running (pid {a.pid} on " in err, served.lines
    assert "waiting up to 60 s for it to end" in err
    assert "nothing to send" in err  # the question was answered meanwhile
    assert host_b.prompts() == []
    assert (await room_text(served)).count("It is 42.") == 1


async def test_a_dead_holder_loses_the_turn_after_the_lease(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    a = host_a.run(served.url, "--agent", "gated")
    await wait_file(host_a.calls, lambda t: t.strip() != "", timeout=30)
    agent_pid = int(json.loads(host_a.calls.read_text())["pid"])
    a.kill()  # kill -9: no release, the claim stays in the room
    a.communicate(timeout=10)
    os.kill(agent_pid, signal.SIGKILL)
    async with peer(served.room(), token_of(served.root)) as watcher:
        lease = current_lease(watcher.doc)
    assert lease is not None
    assert lease.pid == a.pid  # the dead holder still holds it, for now
    host_b.gate.touch()
    started = anyio.current_time()
    b = host_b.run(served.url, "--agent", "gated", "--wait", "--timeout", "60")
    code, err = await finished(b)
    assert code == 0, err
    assert anyio.current_time() - started < 3 * float(LEASE_S) + 10
    served.wait_line(rf"turn of pid {a.pid} on \S+ expired")
    text = await room_text(served)
    assert text.count("It is 42.") == 1
    assert len(host_b.prompts()) == 1


async def test_the_agent_session_stays_with_its_host(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    host_a.gate.touch()
    host_b.gate.touch()
    code, err = await finished(host_a.run(served.url, "--agent", "gated"))
    assert code == 0, err
    text = await room_text(served)
    assert "resume:" not in text  # never in the room's frontmatter
    assert "sess-a" not in text
    await ask(served, "And 3 + 3?")
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err
    (argv_b,) = host_b.argvs()
    assert "sess-a" not in argv_b  # b's agent never had a's session
    assert "--resume" not in argv_b
    await ask(served, "And 4 + 4?")
    code, err = await finished(host_a.run(served.url, "--agent", "gated"))
    assert code == 0, err
    argv_a = host_a.argvs()[-1]
    assert "sess-a" in argv_a  # a resumes its own session
    (prompt,) = host_a.prompts()[1:]
    assert "+And 4 + 4?" in diff_of(prompt)
    assert "+And 3 + 3?" not in diff_of(prompt)  # b's turn answered it
    assert "resume:" not in await room_text(served)


async def test_an_edit_made_while_serve_was_down_is_in_the_first_turn(
    served: ServeProcess, host_a: AgentHost
) -> None:
    """serve stopped, a question typed into the file, serve started, then
    ``run --room`` from a host that had answered before: it sees the edit."""
    host_a.gate.touch()
    code, err = await finished(host_a.run(served.url, "--agent", "gated"))
    assert code == 0, err
    doc = served.root / "pair.md"
    await wait_file(doc, lambda t: "It is 42." in t)
    assert served.stop() == 0
    typed = doc.read_text().replace(END, "And 3 + 3?\n" + END)
    doc.write_text(typed)
    again = ServeProcess(served.root).start()
    try:
        code, err = await finished(host_a.run(again.url, "--agent", "gated"))
        assert code == 0, err
        assert "nothing to send" not in err
        async with peer(again.room(), token_of(served.root)) as alice:
            text = await alice.until(lambda t: t.count("It is 42.") == 2)
        log = again.lines
    finally:
        again.kill()
    prompt = host_a.prompts()[-1]
    assert "+And 3 + 3?" in diff_of(prompt)
    assert text.index("And 3 + 3?") < text.rindex("It is 42.")
    assert text.count("And 3 + 3?") == 1
    merged = next(i for i, line in enumerate(log) if "outside edit of" in line)
    opened = next(i for i, line in enumerate(log) if f"room {SESSION} open" in line)
    assert merged < opened  # merged before the room took its first peer


async def test_a_holder_stopped_past_its_lease_does_not_land_its_answer(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """A holder alive but silent past its lease (SIGSTOP: a laptop lid
    closed) loses the turn; when it continues, its answer is kept, not
    landed beside the answer of the host that took the turn over."""
    a = host_a.run(served.url, "--agent", "gated")
    await wait_file(host_a.calls, lambda t: t.strip() != "", timeout=30)
    a.send_signal(signal.SIGSTOP)
    try:
        host_b.gate.touch()
        b = host_b.run(served.url, "--agent", "gated", "--wait", "--timeout", "60")
        code, err = await finished(b)
        assert code == 0, err
    finally:
        a.send_signal(signal.SIGCONT)
    host_a.gate.touch()
    code, err = await finished(a)
    assert code == 1, err
    assert "this run's turn was taken back" in err
    assert "the answer is kept in" in err
    text = await room_text(served)
    assert text.count("It is 42.") == 1
    kept = list((host_a.checkout / ".agent-doc" / "room-answers").glob("*.answer.md"))
    assert len(kept) == 1


async def test_an_acp_holder_stopped_past_its_lease_stops_streaming(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """An ACP answer streaming into the room is checked against the lease as
    a CLI agent's is: the holder stopped past its lease, once it continues,
    neither streams on nor lands; its answer is kept in room-answers/."""
    words = " ".join(f"slow{i}" for i in range(60))
    host_a.acp(ACP_AGENT_REPLY=words, ACP_AGENT_CHUNK="6", ACP_AGENT_DELAY="0.15")
    a = host_a.run(served.url, "--agent", "standin")
    async with peer(served.room(), token_of(served.root)) as alice:
        await alice.until(lambda t: "slow2 " in t, timeout=60)
    a.send_signal(signal.SIGSTOP)
    try:
        host_b.gate.touch()
        b = host_b.run(served.url, "--agent", "gated", "--wait", "--timeout", "60")
        code, err = await finished(b)
        assert code == 0, err
    finally:
        a.send_signal(signal.SIGCONT)
    code, err = await finished(a)
    assert code == 1, err
    assert "this run's turn was taken back" in err, err
    assert "the answer is kept in" in err
    text = await room_text(served)
    assert text.count("It is 42.") == 1
    assert "slow59" not in text  # neither streamed on nor landed
    kept = list((host_a.checkout / ".agent-doc" / "room-answers").glob("*.answer.md"))
    assert len(kept) == 1
    assert "slow59" in kept[0].read_text()


def local_run(served: ServeProcess, host: AgentHost) -> subprocess.Popen[str]:
    """A plain ``agent-doc run pair.md`` (no ``--room``) in the served project
    itself, on serve's own host (``host``'s HOME: its gated agent)."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "agent_doc.cli.entry", "run", "pair.md"),
            *("--agent", "gated", "--no-git"),
        ],
        cwd=served.root,
        env={**os.environ, **host.env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_a_local_run_on_serves_host_holds_the_rooms_turn(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """A plain local ``run`` of a document serve shares takes the room's
    turn: a ``run --room`` from another host meanwhile is refused with the
    second turn's message, and the question is answered once."""
    await ask(served, "And 5 + 5?")
    local = local_run(served, host_a)
    await wait_file(host_a.calls, lambda t: t.strip() != "", timeout=30)
    host_b.gate.touch()
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 1, err
    assert "already has a turn running" in err, err
    assert host_b.prompts() == []
    host_a.gate.touch()
    code, err = await finished(local)
    assert code == 0, err


async def test_a_local_run_refuses_when_serves_room_cannot_be_asked(
    served: ServeProcess, host_a: AgentHost
) -> None:
    """serve running but its room not reachable where it said (here: its
    announcement moved to a port nobody listens on): the local run is
    refused with one line, the agent never called."""
    serving = served.root / ".agent-doc" / "share" / "serving.json"
    announced = json.loads(serving.read_text())
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    serving.write_text(json.dumps({**announced, "url": f"ws://127.0.0.1:{port}"}))
    code, err = await finished(local_run(served, host_a))
    assert code == 1, err
    assert "is shared by agent-doc serve" in err, err
    assert err.count("\n") == 1, err
    assert host_a.calls.read_text() == ""


def has_event(kind: str) -> Callable[[str], bool]:
    """Whether a watch log's text holds an event of ``kind``."""

    def check(text: str) -> bool:
        lines = [json.loads(line) for line in text.splitlines() if line]
        return any(event["event"] == kind for event in lines)

    return check


def start_watch(served: ServeProcess, host: AgentHost) -> subprocess.Popen[str]:
    """``agent-doc watch pair.md`` in the served project (serve's host)."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "agent_doc.cli.entry", "watch", "pair.md"),
            *("--debounce", "100", "--agent", "gated", "--no-git"),
        ],
        cwd=served.root,
        env={**os.environ, **host.env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )


async def test_watch_on_serves_host_waits_for_the_rooms_turn(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """``watch`` on serve's own host, while another host answers in the
    room: the saved question is queued behind the room's turn, its agent
    not called meanwhile."""
    b = host_b.run(served.url, "--agent", "gated")
    await wait_file(host_b.calls, lambda t: t.strip() != "", timeout=30)
    log = served.root / ".agent-doc" / "logs" / "watch.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.touch()  # watch appends to it
    watch = start_watch(served, host_a)
    try:
        await wait_file(log, has_event("ready"), timeout=30)
        doc = served.root / "pair.md"
        doc.write_text(doc.read_text().replace(END, f"And 9 + 9?\n{END}"))
        await wait_file(log, has_event("turn-running"), timeout=30)
        assert host_a.calls.read_text() == ""  # queued, not answered twice
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=30)
        host_b.gate.touch()
    code, err = await finished(b)
    assert code == 0, err


async def test_a_local_runs_answer_moves_the_rooms_snapshot(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """A plain local ``run`` on serve's host answers a question; a later
    ``run --room`` from another host with a new question sends only the new
    question (the room's snapshot is the local answer), and the answer is in
    the room once."""
    host_b.gate.touch()
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err  # host b's agent has a session (its next prompt: a diff)
    await ask(served, "And 5 + 5?")
    host_a.gate.touch()
    code, err = await finished(local_run(served, host_a))
    assert code == 0, err
    await ask(served, "And 7 + 7?")
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err
    assert len(host_b.prompts()) == 2
    sent = diff_of(host_b.prompts()[1])
    assert "+And 7 + 7?" in sent, sent
    assert "+And 5 + 5?" not in sent, sent  # answered by the local run
    assert "+It is 42." not in sent, sent
    text = await room_text(served)
    assert text.count("And 5 + 5?") == 1, text
    assert text.count("It is 42.") == 3, text  # one per answered question
    assert text.index("And 5 + 5?") < text.index("And 7 + 7?"), text


async def test_watchs_answer_on_serves_host_moves_the_rooms_snapshot(
    served: ServeProcess, host_a: AgentHost, host_b: AgentHost
) -> None:
    """``watch`` on serve's own host answers a saved question: a later
    ``run --room`` from another host sends only the question typed since."""
    host_b.gate.touch()
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err  # host b's agent has a session (its next prompt: a diff)
    log = served.root / ".agent-doc" / "logs" / "watch.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.touch()  # watch appends to it
    host_a.gate.touch()
    watch = start_watch(served, host_a)
    try:
        await wait_file(log, has_event("ready"), timeout=30)
        doc = served.root / "pair.md"
        doc.write_text(doc.read_text().replace(END, f"And 9 + 9?\n{END}"))
        await wait_file(log, has_event("cycle-done"), timeout=60)
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=30)
    await ask(served, "And 7 + 7?")
    code, err = await finished(host_b.run(served.url, "--agent", "gated"))
    assert code == 0, err
    sent = diff_of(host_b.prompts()[-1])
    assert "+And 7 + 7?" in sent, sent
    assert "+And 9 + 9?" not in sent, sent  # answered by watch
    assert (await room_text(served)).count("And 9 + 9?") == 1
