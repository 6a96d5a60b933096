"""``agent-doc serve`` with real peers: convergence, projection, outside edits, faults."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import token_of
from tests.share.rooms import wait_file

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "pair.md"
    path.write_text(DOC, encoding="utf-8")
    return path


@pytest.fixture
def served(project: Path, doc: Path) -> Iterator[ServeProcess]:
    server = ServeProcess(project).start()
    yield server
    server.kill()


async def test_two_peers_converge_and_the_file_is_their_projection(
    served: ServeProcess, doc: Path
) -> None:
    token = token_of(served.root)
    async with peer(served.room(), token) as alice, peer(served.room(), token) as bob:
        assert str(alice.text) == DOC == str(bob.text)  # seeded once from the file
        at_heading = str(alice.text).index("# Pairing") + len("# Pairing")
        alice.type(at_heading, " (alice)")
        bob.type(len(str(bob.text).encode()), "bob was here\n")
        want = DOC.replace("# Pairing", "# Pairing (alice)") + "bob was here\n"
        assert await alice.until(lambda t: t == want) == want
        assert await bob.until(lambda t: t == want) == want
    assert await wait_file(doc, lambda t: t == want) == want


async def test_outside_edit_reaches_peers_as_a_diff(
    served: ServeProcess, doc: Path
) -> None:
    token = token_of(served.root)
    async with peer(served.room(), token) as alice:
        alice.type(len(str(alice.text).encode()), "typed in the room\n")
        await wait_file(doc, lambda t: "typed in the room" in t)
        edited = doc.read_text().replace("What is 6 x 7?", "What is 6 x 7, really?")
        doc.write_text(edited, encoding="utf-8")  # an editor without the plugin
        text = await alice.until(lambda t: "really?" in t)
        assert text == edited
        assert text.count("typed in the room") == 1
        assert text.count("agent_doc_session") == 1
    served.wait_line(r"outside edit of .*pair\.md")


async def test_kill_9_and_restart_duplicates_nothing(project: Path, doc: Path) -> None:
    first = ServeProcess(project).start()
    token = token_of(project)
    import pycrdt

    kept = pycrdt.Doc()  # a peer's document, kept across the crash
    try:
        async with peer(first.room(), token, kept) as alice:
            for n in range(5):
                alice.type(len(str(alice.text).encode()), f"line {n}\n")
            await wait_file(doc, lambda t: "line 4" in t)
            first.kill()  # mid-session: no shutdown, no flush
    except Exception:  # the socket dies under the provider
        pass
    second = ServeProcess(project).start()
    try:
        async with peer(second.room(), token, kept) as alice:  # reconnects
            alice.type(len(str(alice.text).encode()), "after restart\n")
            async with peer(second.room(), token) as bob:
                text = await bob.until(lambda t: "after restart" in t)
        for line in (
            "line 0",
            "line 4",
            "after restart",
            "What is 6 x 7?",
            "agent_doc_session",
        ):
            assert text.count(line) == 1, (line, text)
        assert await wait_file(doc, lambda t: t == text) == text
    finally:
        second.kill()


async def test_serve_reseeds_nothing_when_the_store_has_the_room(
    project: Path, doc: Path
) -> None:
    first = ServeProcess(project).start()
    token = token_of(project)
    async with peer(first.room(), token) as alice:
        alice.type(0, "")  # no-op: just join
        alice.type(len(str(alice.text).encode()), "kept in the store\n")
        await wait_file(doc, lambda t: "kept in the store" in t)
    assert first.stop() == 0
    doc.write_text(DOC, encoding="utf-8")  # edited while the server was down
    second = ServeProcess(project).start()
    try:
        async with peer(second.room(), token) as bob:
            # the store is the truth; the offline edit (a removal) merges as a diff
            text = await bob.until(lambda t: "kept in the store" not in t)
            assert text == DOC
    finally:
        second.kill()
    assert SESSION in text
