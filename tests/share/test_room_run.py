"""``agent-doc run --room``: a turn on an agent host that shares no files with the editors.

A real ``agent-doc serve`` serves the project; the agent's host is a git clone
of it with its own HOME and config. The agents are the stand-ins: the gated
CLI agent (``tests/data/gated_agent.py``, answers once a gate file exists) and
the ACP agent (``tests/data/acp_agent.py``, streams its answer). A peer joins
the room as an editor would and types while the answer comes.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer
from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc
from tests.share.agent_hosts import AgentHost
from tests.share.agent_hosts import finished
from tests.share.agent_hosts import git
from tests.share.agent_hosts import new_host
from tests.share.proxy import FaultyProxy
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(120)

QUESTION = "What is 6 x 7?"
WORDS = " ".join(f"word{i}" for i in range(80))


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    (project / "pair.md").write_text(DOC, encoding="utf-8")
    git(project, "add", "pair.md")
    git(project, "commit", "-qm", "pair")
    server = ServeProcess(project).start()
    yield server
    server.kill()


@pytest.fixture
def host(tmp_path: Path, project: Path, served: ServeProcess) -> AgentHost:
    return new_host(tmp_path, project, served)


def snapshot_of(host: AgentHost) -> str | None:
    return StateStore(host.checkout).load_snapshot(host.checkout / "pair.md")


async def test_a_cli_agent_answers_into_the_room_keeping_a_peers_edit(
    served: ServeProcess, host: AgentHost
) -> None:
    token = token_of(served.root)
    async with peer(served.room(), token) as alice:
        proc = host.run(served.url, "--agent", "gated")
        await wait_file(host.calls, lambda t: t.strip() != "", timeout=30)
        at = str(alice.text).index(QUESTION) + len(QUESTION)
        alice.type(at, " Also: why?")  # typed while the agent works
        await wait_file(served.root / "pair.md", lambda t: "Also: why?" in t)
        host.gate.touch()
        code, err = await finished(proc)
        assert code == 0, err
        assert f"gated answered; wrote pair.md (room {served.room()}" in err
        text = await alice.until(lambda t: "It is 42." in t)
    assert text.count("It is 42.") == 1
    assert text.count("What is 6 x 7? Also: why?") == 1
    assert text.index("Also: why?") < text.index("It is 42.")
    assert await wait_file(served.root / "pair.md", lambda t: t == text) == text
    prompt = json.loads(host.calls.read_text().splitlines()[0])["prompt"]
    assert "Also: why?" not in prompt  # the turn started before it was typed
    # the agent host's copy follows the room; its snapshot is the answer
    # without the peer's edit (so that edit is in the next turn's diff)
    local = (host.checkout / "pair.md").read_text()
    assert local == text
    snapshot = snapshot_of(host)
    assert snapshot is not None
    assert "It is 42." in snapshot
    assert "Also: why?" not in snapshot
    assert git(host.checkout, "log", "-1", "--format=%s").startswith("agent-doc(")
    assert "It is 42." in git(host.checkout, "show", "HEAD:pair.md")

    # the next turn: its diff holds the peer's edit and the new question
    async with peer(served.room(), token) as alice:
        end = str(alice.text).index("<!-- /agent:exchange -->")
        alice.type(end, "And 3 + 3?\n")
        await wait_file(served.root / "pair.md", lambda t: "And 3 + 3?" in t)
        second = host.run(served.url, "--agent", "gated", "--no-git")
        code, err = await finished(second)
        assert code == 0, err
        text = await alice.until(lambda t: t.count("It is 42.") == 2)
    calls = host.calls.read_text().splitlines()
    assert len(calls) == 2
    diff = json.loads(calls[1])["prompt"]
    assert "<diff>" in diff
    assert "+What is 6 x 7? Also: why?" in diff
    assert "+And 3 + 3?" in diff
    assert (host.checkout / "pair.md").read_text() == text
    assert git(host.checkout, "status", "--porcelain", "pair.md").strip()  # no commit


async def test_a_second_run_at_once_is_refused_and_sends_nothing(
    served: ServeProcess, host: AgentHost
) -> None:
    """One turn per document on the agent host, --room or not: a second
    ``run --room`` while the first waits for its agent is refused at once,
    calls no agent, and the first answer lands exactly once."""
    token = token_of(served.root)
    first = host.run(served.url, "--agent", "gated")
    await wait_file(host.calls, lambda t: t.strip() != "", timeout=30)
    second = host.run(served.url, "--agent", "gated")
    code, err = await finished(second)
    assert code == 1, err
    assert f"pair.md already has a turn running (pid {first.pid}, " in err
    assert len(host.calls.read_text().splitlines()) == 1  # no second agent call
    host.gate.touch()
    code, err = await finished(first)
    assert code == 0, err
    async with peer(served.room(), token) as alice:
        text = await alice.until(lambda t: "It is 42." in t)
    assert text.count("It is 42.") == 1
    assert len(host.calls.read_text().splitlines()) == 1


async def test_an_acp_answer_streams_into_the_room_with_presence(
    served: ServeProcess, host: AgentHost
) -> None:
    host.acp(ACP_AGENT_REPLY=WORDS, ACP_AGENT_CHUNK="6", ACP_AGENT_DELAY="0.04")
    token = token_of(served.root)
    events: list[tuple[str, object]] = []
    streaming = anyio.Event()
    left = anyio.Event()

    def on_remote(text: str) -> None:
        events.append(("text", text))
        if "word3 " in text and "word79" not in text:
            streaming.set()

    def on_status(status: PeerStatus) -> None:
        nonlocal left
        events.append(("writing", status.writing()))
        if status.writing():
            left = anyio.Event()  # the agent is (again) present
        else:
            left.set()

    watcher = RoomPeer(
        served.room(),
        lambda: token,
        on_remote=on_remote,
        on_status=on_status,
        user="bob",
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watcher.run)
        async with peer(served.room(), token) as alice:
            proc = host.run(served.url, "--agent", "standin")
            with anyio.fail_after(30):
                await streaming.wait()
            at = str(alice.text).index(QUESTION) + len(QUESTION)
            alice.type(at, " (quick)")  # typed while the answer streams
            code, err = await finished(proc)
            assert code == 0, err
            text = await alice.until(lambda t: "word79" in t and "(quick)" in t)
        with anyio.fail_after(2):  # the agent's presence is gone once it left
            await left.wait()
        watcher.close()
    assert text.count("word79") == 1
    assert text.count(WORDS) == 1, text
    assert text.count("What is 6 x 7? (quick)") == 1
    texts = [t for kind, t in events if kind == "text"]
    partial = [t for t in texts if isinstance(t, str) and "word3 " in t]
    assert partial
    assert "word79" not in partial[0]  # it streamed, in steps
    first_partial = events.index(("text", partial[0]))
    assert ("writing", True) in events[:first_partial]  # "agent writing" while
    # the watcher reports text from a task of its own: the final text may be
    # reported just after the presence change that followed it
    assert [e for e in events if e[0] == "writing"][-1] == ("writing", False)
    assert await wait_file(served.root / "pair.md", lambda t: t == text) == text
    assert (host.checkout / "pair.md").read_text() == text
    snapshot = snapshot_of(host)
    assert snapshot is not None
    assert "(quick)" not in snapshot
    assert "resume: " in text


async def test_a_connection_cut_mid_stream_is_joined_again_without_duplicates(
    served: ServeProcess, host: AgentHost
) -> None:
    host.acp(ACP_AGENT_REPLY=WORDS, ACP_AGENT_CHUNK="6", ACP_AGENT_DELAY="0.05")
    async with (
        FaultyProxy(served.url) as proxy,
        peer(served.room(), token_of(served.root)) as alice,
    ):
        url = proxy.url
        proc = host.run(url, "--agent", "standin")
        await alice.until(lambda t: "word3 " in t, timeout=30)
        streamed = proxy.accepted  # the checks and the stream's connection
        proxy.cut()  # mid-answer: the stream's connection dies
        code, err = await finished(proc)
        assert code == 0, err
        text = await alice.until(lambda t: "word79" in t)
    assert proxy.accepted > streamed  # it joined again
    assert f"lost {url}/" in err, err
    assert text.count(WORDS) == 1, text
    assert text.count("word0 ") == 1
    assert (host.checkout / "pair.md").read_text() == text


async def test_ctrl_c_keeps_what_streamed_marked_interrupted(
    served: ServeProcess, host: AgentHost
) -> None:
    host.acp(ACP_AGENT_REPLY=WORDS, ACP_AGENT_CHUNK="6", ACP_AGENT_DELAY="0.1")
    token = token_of(served.root)
    writing: list[bool] = []
    present = anyio.Event()
    gone = anyio.Event()

    def on_status(status: PeerStatus) -> None:
        writing.append(status.writing())
        (present if status.writing() else gone).set()

    watcher = RoomPeer(
        served.room(), lambda: token, on_remote=lambda _t: None, on_status=on_status
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watcher.run)
        async with peer(served.room(), token) as alice:
            proc = host.run(served.url, "--agent", "standin")
            await alice.until(lambda t: "word2 " in t, timeout=30)
            with anyio.fail_after(10):
                await present.wait()
            gone = anyio.Event()
            proc.send_signal(signal.SIGINT)
            code, err = await finished(proc)
            assert code == 130, err
            assert "marked interrupted" in err
            text = await alice.until(lambda t: "*(interrupted)*" in t)
        with anyio.fail_after(2):  # the presence is cleared after a Ctrl-C too
            await gone.wait()
        watcher.close()
    assert writing[-1] is False
    assert text.count("*(interrupted)*") == 1
    assert text.count("word0 ") == 1
    assert "word79" not in text
    assert (host.checkout / "pair.md").read_text() == text


@pytest.mark.parametrize("agent", ["gated", "standin"])
async def test_a_wrong_token_or_no_server_is_refused_before_the_agent(
    served: ServeProcess, host: AgentHost, agent: str
) -> None:
    head = git(host.checkout, "rev-parse", "HEAD")
    host.token_file.write_text("not-the-token\n")
    code, err = await finished(host.run(served.url, "--agent", agent))
    assert code == 1
    assert err.count("\n") == 1, err
    assert "refused the connection (HTTP 403)" in err
    served.wait_line(r"refused 127\.0\.0\.1:\d+ /\S+: wrong token")
    served.kill()
    host.token_file.write_text(token_of(served.root) + "\n")
    code, err = await finished(host.run(served.url, "--agent", agent))
    assert code == 1
    assert err.count("\n") == 1, err
    assert f"cannot reach {served.room()}" in err
    # nothing was sent to the agent and nothing changed on the agent's host
    assert host.calls.read_text() == ""
    assert host.acp_calls.read_text() == ""
    assert (host.checkout / "pair.md").read_text() == DOC
    assert snapshot_of(host) is None
    assert git(host.checkout, "rev-parse", "HEAD") == head
    assert git(host.checkout, "status", "--porcelain") == ""
    assert (served.root / "pair.md").read_text() == DOC


async def test_an_agent_that_dies_mid_answer_leaves_the_room_as_it_was(
    served: ServeProcess, host: AgentHost
) -> None:
    host.acp(
        ACP_AGENT_REPLY=WORDS,
        ACP_AGENT_CHUNK="6",
        ACP_AGENT_DELAY="0.05",
        ACP_AGENT_CRASH_AFTER="20",
    )
    async with peer(served.room(), token_of(served.root)) as alice:
        proc = host.run(served.url, "--agent", "standin")
        await alice.until(lambda t: "word3 " in t, timeout=30)
        at = str(alice.text).index(QUESTION) + len(QUESTION)
        alice.type(at, " (quick)")
        code, err = await finished(proc)
        assert code == 1, err
        assert "standin" in err
        text = await alice.until(lambda t: "word" not in t)
    assert text == DOC.replace(QUESTION, QUESTION + " (quick)")
    assert await wait_file(served.root / "pair.md", lambda t: t == text) == text
    assert (host.checkout / "pair.md").read_text() == DOC
    assert snapshot_of(host) is None


async def test_an_answer_the_room_cannot_take_is_kept_and_lands_later(
    served: ServeProcess, host: AgentHost
) -> None:
    proc = host.run(served.url, "--agent", "gated")
    await wait_file(host.calls, lambda t: t.strip() != "", timeout=30)
    served.kill()  # the server goes away while the agent works
    host.gate.touch()
    code, err = await finished(proc)
    assert code == 1, err
    assert err.count("\n") == 1, err
    assert f"cannot reach {served.room()}" in err
    kept = sorted((host.checkout / ".agent-doc" / "room-answers").iterdir())
    answer, baseline = kept  # *.answer.md, *.baseline.md
    assert answer.read_text().startswith("### Re: product\n\nIt is 42.")
    assert baseline.read_text() == DOC
    assert f"--baseline-file {baseline} < {answer}" in err
    assert (host.checkout / "pair.md").read_text() == DOC
    assert snapshot_of(host) is None

    again = ServeProcess(served.root).start()  # restarted: the answer lands once
    try:
        async with peer(again.room(), token_of(served.root)) as alice:
            alice.type(str(alice.text).index(QUESTION) + len(QUESTION), " (quick)")
            landed = await anyio.to_thread.run_sync(
                lambda: agent_doc(
                    *("write", "pair.md", "--room", again.url),
                    *("--token-file", str(host.token_file)),
                    *("--baseline-file", str(baseline)),
                    cwd=host.checkout,
                    stdin=answer.read_text(),
                    env=host.env,
                )
            )
            assert landed.returncode == 0, landed.stderr
            text = await alice.until(lambda t: "It is 42." in t)
    finally:
        again.kill()
    assert text.count("It is 42.") == 1
    assert text.count("What is 6 x 7? (quick)") == 1


async def test_the_agent_reading_the_document_reads_the_room(
    served: ServeProcess, host: AgentHost
) -> None:
    line = DOC.splitlines().index(QUESTION) + 1
    host.acp(ACP_AGENT_READ="pair.md", ACP_AGENT_READ_LINE=str(line))
    async with peer(served.room(), token_of(served.root)) as alice:
        alice.type(str(alice.text).index(QUESTION) + len(QUESTION), " Really?")
        await wait_file(served.root / "pair.md", lambda t: "Really?" in t)
        code, err = await finished(host.run(served.url, "--agent", "standin"))
        assert code == 0, err
        text = await alice.until(lambda t: "read: " in t)
    assert "read: What is 6 x 7? Really?" in text  # not the agent host's old copy


async def test_the_agent_cannot_overwrite_the_shared_document_behind_the_room(
    served: ServeProcess, host: AgentHost
) -> None:
    host.acp(ACP_AGENT_WRITE="pair.md", ACP_AGENT_WRITE_TEXT="clobbered\n")
    async with peer(served.room(), token_of(served.root)) as alice:
        code, err = await finished(host.run(served.url, "--agent", "standin"))
        assert code == 0, err
        text = await alice.until(lambda t: "write failed: " in t)
    assert "pair.md is shared in a room" in text  # the agent was told why
    assert "clobbered" not in text
    assert (host.checkout / "pair.md").read_text() == text
