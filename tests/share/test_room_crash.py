"""Crash points of the room commands, swept: the answer lands exactly once.

Each point (``AGENT_DOC_CRASH_AT``, :mod:`agent_doc._runtime.faults`) ends
the real process there as ``kill -9`` would: ``write --room`` and ``run
--room`` on an agent host with its own HOME, and ``agent-doc serve`` itself
(its store and its file projection). Then the command runs again (after a
restart of ``serve`` for its points) and the test asserts: the answer is in
the room and in the served file exactly once, what a person typed before is
kept, the file is whole (the room's text), and the host's snapshot is the
room's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_doc._runtime.faults import CRASH_EXIT
from agent_doc._runtime.faults import KNOWN_POINTS
from agent_doc.share.turn_state import room_snapshot
from agent_doc.store.state import StateStore
from tests.share.agent_hosts import AgentHost
from tests.share.agent_hosts import finished
from tests.share.agent_hosts import git
from tests.share.agent_hosts import new_host
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)

QUESTION = "What is 6 x 7?"
TYPED = " (typed first)"
LEASE = {"AGENT_DOC_ROOM_LEASE_S": "2"}

WRITE_POINTS = ["room.write.before_transaction", "room.write.after_ack"]
RUN_POINTS = ["room.run.after_agent", "room.run.after_room", "room.run.after_settle"]
SERVE_POINTS = [
    "serve.store.before_write@3",
    "serve.store.after_write@3",
    "serve.projection.after_file@2",
]
"""The seed is stored write 1 and the typing write 2 (projection 1): the
crash comes with the answer."""


def test_every_room_point_is_swept() -> None:
    import agent_doc.cycle.room_turn
    import agent_doc.share.persist
    import agent_doc.share.remote
    import agent_doc.share.room_file  # noqa: F401  (they declare the points)

    swept = {p.split("@")[0] for p in WRITE_POINTS + RUN_POINTS + SERVE_POINTS}
    declared = {p for p in KNOWN_POINTS if p.startswith(("room.", "serve."))}
    assert swept == declared


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    server = ServeProcess(project, env=LEASE).start()
    yield server
    server.kill()


@pytest.fixture
def host(tmp_path: Path, project: Path, served: ServeProcess) -> AgentHost:
    agent_host = new_host(tmp_path, project, served)
    agent_host.gate.touch()
    return agent_host


async def type_first(served: ServeProcess) -> str:
    """A person types into the question before the command; the room's text."""
    async with peer(served.room(), token_of(served.root)) as alice:
        alice.type(str(alice.text).index(QUESTION) + len(QUESTION), TYPED)
        await wait_file(served.root / "pair.md", lambda t: TYPED in t)
        return str(alice.text)


async def assert_landed_once(served: ServeProcess, host: AgentHost) -> str:
    """The room and the served file hold the answer once and the typing."""
    async with peer(served.room(), token_of(served.root)) as alice:
        text = await alice.until(lambda t: "It is 42." in t)
        snapshot = room_snapshot(alice.doc)
    assert text.count("It is 42.") == 1, text
    assert text.count(QUESTION + TYPED) == 1, text
    assert await wait_file(served.root / "pair.md", lambda t: t == text) == text
    local = StateStore(host.checkout).load_snapshot(host.checkout / "pair.md")
    assert snapshot is not None
    assert local == snapshot  # the host's snapshot follows the room's
    return text


@pytest.mark.parametrize("point", WRITE_POINTS)
async def test_write_room_crashed_then_written_again_lands_once(
    served: ServeProcess, host: AgentHost, point: str
) -> None:
    baseline = host.checkout.parent / "baseline.md"
    baseline.write_text(await type_first(served))
    args = ("--baseline-file", str(baseline))
    crashed = host.write(served.url, ANSWER, *args, env={"AGENT_DOC_CRASH_AT": point})
    assert crashed.returncode == CRASH_EXIT, crashed.stderr
    again = host.write(served.url, ANSWER, *args)
    assert again.returncode == 0, again.stderr
    landed_before = point == "room.write.after_ack"
    verb = "already landed:" if landed_before else "wrote"
    assert f"agent-doc: {verb} pair.md" in again.stderr
    await assert_landed_once(served, host)


@pytest.mark.parametrize("point", RUN_POINTS)
async def test_run_room_crashed_then_run_again_lands_once(
    served: ServeProcess, host: AgentHost, point: str
) -> None:
    await type_first(served)
    crashed = host.run(
        served.url, "--agent", "gated", env={"AGENT_DOC_CRASH_AT": point}
    )
    code, err = await finished(crashed)
    assert code == CRASH_EXIT, err
    # the dead run's lease may still be in the room: the next run waits it out
    code, err = await finished(
        host.run(served.url, "--agent", "gated", "--wait", "--timeout", "30")
    )
    assert code == 0, err
    text = await assert_landed_once(served, host)
    if point == "room.run.after_agent":  # nothing landed: asked again
        assert len(host.prompts()) == 2
    else:  # landed: the run again has nothing to send
        assert len(host.prompts()) == 1
        assert "nothing to send" in err
    assert (host.checkout / "pair.md").read_text() == text


@pytest.mark.parametrize("point", SERVE_POINTS)
async def test_serve_crashed_then_restarted_keeps_the_answer_once(
    project: Path, tmp_path: Path, point: str
) -> None:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    server = ServeProcess(project, env={"AGENT_DOC_CRASH_AT": point, **LEASE})
    try:
        server.start()
        host = new_host(tmp_path, project, server)
        baseline = host.checkout.parent / "baseline.md"
        baseline.write_text(await type_first(server))
        args = ("--baseline-file", str(baseline))
        first = host.write(server.url, ANSWER, *args)  # the server dies on the way
        assert server.proc.wait(timeout=30) == CRASH_EXIT
        if point.startswith("serve.store.before_write"):  # never acknowledged:
            assert first.returncode == 1, first.stderr  # the writer knows
            assert first.stderr.count("\n") == 1, first.stderr
    finally:
        server.kill()
    again = ServeProcess(project, env=LEASE).start()
    try:
        written = host.write(again.url, ANSWER, *args)
        assert written.returncode == 0, written.stderr
        await assert_landed_once(again, host)
    finally:
        again.kill()
